import * as fs from 'node:fs';
import * as readline from 'node:readline';
import { finished } from 'node:stream/promises';
import { InvalidArgumentError } from 'commander';
import { fixTimestampsInJson, readPublicKey } from '#mds/platform';
import {
  appendCheckpoint,
  exportLines,
  listCampaigns,
  listCustomers,
  listEvents,
  listProducts,
  listSales,
  positionAtTime,
  verifyExport,
  withReplaySchema,
  type ExportProgress,
} from '#mds/projections';
import type { Runtime } from '#mds/runtime';
import { DATATYPES, type LogPoint } from './args';
import { withRuntime } from './cli-context';
import { resolvePoint } from './events.actions';
import { progressPrinter, rateAndEta, type Progress } from './progress';

const write = (out: NodeJS.WritableStream, text: string) => (out.write(text) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));

/** A page of a read model as retrieval answers it, from the live read models or a replay's schema (the same queries on either). */
export function query(datatype: string, opts: { schema?: string; limit: number; where?: string[] }): Promise<void> {
  if (!(DATATYPES as readonly string[]).includes(datatype)) throw new InvalidArgumentError(`datatype must be one of ${DATATYPES.join(', ')}`);
  if (opts.limit < 1 || opts.limit > 10_000) throw new InvalidArgumentError('--limit must be from 1 to 10000');
  const filters: Record<string, string> = {};
  for (const w of opts.where ?? []) {
    const at = w.indexOf('=');
    if (at < 1) throw new InvalidArgumentError(`--where ${w}: give key=value`);
    filters[w.slice(0, at)] = w.slice(at + 1);
  }
  return withRuntime(async (runtime) => {
    const page = async (db: Runtime['pool']): Promise<unknown[]> => {
      switch (datatype) {
        case 'customers':
          return JSON.parse(`[${(await listCustomers(db, { limit: opts.limit, filters })).json}]`) as unknown[];
        case 'products':
          return (await listProducts(db, { limit: opts.limit, filters })).map((r) => r.product);
        case 'events':
          return (await listEvents(db, { limit: opts.limit, filters })).map((r) => r.event);
        case 'sales':
          return (await listSales(db, { limit: opts.limit, filters })).map((r) => r.sale);
        default:
          return (await listCampaigns(db, { limit: Math.min(opts.limit, 100), order: 'ascending', keys: filters.campaign_key?.split(',') })).json.map((j) => JSON.parse(j) as unknown);
      }
    };
    const records = opts.schema ? await withReplaySchema(runtime.pool, opts.schema, page) : await page(runtime.pool);
    // Timestamps as the API answers them, so a replayed read model compares with the live one.
    process.stdout.write(`${fixTimestampsInJson(JSON.stringify({ [datatype]: records, count: records.length }))}\n`);
  });
}

export function exportLog(opts: { from?: LogPoint; to?: LogPoint; out?: string }): Promise<void> {
  return withRuntime(async (runtime) => {
    const head = await runtime.store.headPosition();
    const from = opts.from === undefined ? 1 : 'position' in opts.from ? Math.max(opts.from.position, 1) : (await positionAtTime(runtime.store, opts.from.time)) + 1;
    const to = opts.to === undefined ? head : Math.min(await resolvePoint(runtime, opts.to), head);
    const temp = opts.out ? `${opts.out}.partial-${process.pid}` : undefined;
    const out = temp ? fs.createWriteStream(temp) : process.stdout;
    const printer = progressPrinter();
    const started = Date.now();
    let last: Progress | undefined;
    let count = 0;
    try {
      const onProgress = (p: ExportProgress) => {
        count = p.events;
        const span = Math.max(to - from + 1, 1);
        printer.update((last = { label: 'export', position: p.position, head: to, ...rateAndEta(started, p.events, (p.position - from + 1) / span) }));
      };
      for await (const lines of exportLines(runtime.store, { from, to }, { signer: runtime.auditSigner(), onProgress })) {
        await write(out, lines);
      }
      if (temp) {
        (out as fs.WriteStream).end();
        await finished(out as fs.WriteStream);
        fs.renameSync(temp, opts.out!);
      }
    } catch (err) {
      if (temp) fs.rmSync(temp, { force: true });
      throw err;
    }
    printer.done(last);
    process.stderr.write(`exported ${count} events, positions ${from} to ${to}${opts.out ? `, to ${opts.out}` : ''}\n`);
  });
}

export async function verify(file: string, opts: { publicKey?: string }): Promise<void> {
  if (!fs.existsSync(file)) throw new InvalidArgumentError(`no file ${file}`);
  let key: ReturnType<typeof readPublicKey> | undefined;
  if (opts.publicKey !== undefined) {
    if (!fs.existsSync(opts.publicKey)) throw new InvalidArgumentError(`no file ${opts.publicKey}`);
    try {
      key = readPublicKey(fs.readFileSync(opts.publicKey, 'utf8'));
    } catch (err) {
      throw new InvalidArgumentError(`${opts.publicKey}: not an Ed25519 public key in PEM (${(err as Error).message})`);
    }
  }
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  const result = await verifyExport(lines, key);
  if (!result.ok) throw new Error(`${file}: line ${result.line}: ${result.problem}`);
  const signed = key ? `; signed by key ${key.keyId}${result.checkpoints ? `, ${result.checkpoints} checkpoint(s) of the log inside` : ''}` : '; signatures not checked (give --public-key)';
  const p = result.personal;
  const kept = p.verified + p.erased + p.uncommitted > 0 ? `; personal fields: ${p.verified} line(s) as committed, ${p.erased} erased${p.uncommitted ? `, ${p.uncommitted} from before commitments` : ''}` : '';
  process.stdout.write(`${file}: ok, ${result.count} events, chain head ${result.head}${signed}${kept}\n`);
}

export function publicKey(): Promise<void> {
  return withRuntime(async (runtime) => {
    const signer = runtime.auditSigner();
    process.stdout.write(signer.publicKeyPem);
    process.stderr.write(`key id ${signer.keyId}\n`);
  });
}

export function checkpoint(): Promise<void> {
  return withRuntime(async (runtime) => {
    const appended = await appendCheckpoint(runtime.store, runtime.auditSigner());
    process.stdout.write(appended ? `checkpoint at position ${appended.position}: ${appended.count} events, chain head ${appended.head}\n` : 'no event since the last checkpoint\n');
  });
}
