import * as net from 'node:net';
import { ProbeModule } from '../fixtures/probe.module';
import { seedUserToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';
import { rawRequest } from '../support/raw-http';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/**
 * A client on a socket of its own, writing exactly what it is told when it is told: a body that
 * trickles, stops half-way or never ends. `answer` is the first response read off the socket.
 */
class RawClient {
  /** Every client not yet closed: a failed test must not leave the API waiting on its bodies. */
  static readonly open = new Set<RawClient>();
  private received = '';
  private readonly waiters: Array<() => void> = [];
  readonly closed: Promise<void>;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (d) => {
      this.received += d.toString('latin1');
      this.waiters.splice(0).forEach((w) => w());
    });
    // A reset after the answer (bytes still on their way when the server closed) is a close like any other.
    socket.on('error', () => undefined);
    RawClient.open.add(this);
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    void this.closed.then(() => RawClient.open.delete(this));
    void this.closed.then(() => this.waiters.splice(0).forEach((w) => w()));
  }

  static connect(base: string): Promise<RawClient> {
    const { hostname, port } = new URL(base);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  get isClosed(): boolean {
    return this.socket.destroyed;
  }

  write(data: string | Buffer): void {
    if (!this.socket.destroyed) this.socket.write(data);
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** The first complete response, or an error when none came within `timeoutMs` (generous: never a measure of speed). */
  async answer(timeoutMs = 20_000): Promise<RawAnswer> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.socket.destroyed) throw new Error(`connection closed without a complete answer: ${JSON.stringify(this.received.slice(0, 200))}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no answer within ${timeoutMs} ms: ${JSON.stringify(this.received.slice(0, 200))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  private parse(): RawAnswer | undefined {
    const end = this.received.indexOf('\r\n\r\n');
    if (end === -1) return undefined;
    const [statusLine, ...lines] = this.received.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const raw = Buffer.from(this.received.slice(end + 4), 'latin1');
    if (raw.length < length) return undefined;
    const text = raw.subarray(0, length).toString('utf8');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the assertion shows it
    }
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  }
}

afterEach(() => {
  for (const client of RawClient.open) client.destroy();
});

const head = (token: string, length: number | 'chunked', path = '/api/probe/echo/') =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
  (length === 'chunked' ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${length}\r\n`) +
  '\r\n';

/** The request-body budget's gauges on /metrics. */
async function budgetOf(api: TestApi, token: string): Promise<{ bytes: number; waiting: number }> {
  const text = await (await fetch(`${api.base}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
  const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { bytes: gauge('mds_http_body_bytes_in_flight'), waiting: gauge('mds_http_body_requests_waiting') };
}

/** A JSON body of exactly `bytes` bytes: {"note":"xxx…"}. */
const bodyOf = (bytes: number) => JSON.stringify({ note: 'x'.repeat(bytes - '{"note":""}'.length) });

describe('slow clients: a request that trickles in is cut (real HTTP on loopback)', () => {
  let api: TestApi;
  let token: string;

  beforeAll(async () => {
    api = await startTestApi({ env: { MDS_REQUEST_TIMEOUT_MS: '1500' }, contexts: [ProbeModule] });
    ({ token } = await seedUserToken(api.rt, 'slow-admin', ['admin']));
  });
  afterAll(async () => {
    await api?.close();
  });

  it('answers a body arriving a byte every 300 ms with 408 request_timeout long before it is complete, then closes', async () => {
    const client = await RawClient.connect(api.base);
    const body = bodyOf(100);
    client.write(head(token, 100));
    let sent = 0;
    // 100 bytes at this pace take 30 s; the timeout is 1.5 s.
    const trickle = setInterval(() => client.write(body[sent++] ?? ''), 300);
    try {
      const answer = await client.answer(20_000);
      expect(answer.status).toBe(408);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(answer.body).toEqual({ error: { code: 'request_timeout', message: expect.stringContaining('within 1500 ms') } });
      expect(sent).toBeLessThan(100);
      await eventually(() => client.isClosed, { timeoutMs: 10_000 });
      // The cut request's share of the body budget went with it, and the cut is no fault of the server's.
      await eventually(async () => expect((await budgetOf(api, token)).bytes).toBe(0));
      expect(api.rt.logLines.filter((l) => /"level":"(error|fatal)"/.test(l))).toEqual([]);
    } finally {
      clearInterval(trickle);
      client.destroy();
    }
  });

  it('cuts headers that trickle in the same way', async () => {
    const client = await RawClient.connect(api.base);
    client.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // Never ends: a header line that grows by one byte every 300 ms.
    client.write('x-slow: ');
    const trickle = setInterval(() => client.write('a'), 300);
    try {
      const answer = await client.answer(20_000);
      expect([answer.status, answer.body.error?.code]).toEqual([408, 'request_timeout']);
      await eventually(() => client.isClosed, { timeoutMs: 10_000 });
    } finally {
      clearInterval(trickle);
      client.destroy();
    }
  });

  it('leaves a request that arrives in time alone', async () => {
    const client = await RawClient.connect(api.base);
    client.write(head(token, 9) + '{"a":"b"}');
    const answer = await client.answer();
    expect([answer.status, answer.body]).toEqual([201, { received: { a: 'b' } }]);
    client.destroy();
  });

  it('answers a path or query whose percent-encoding is not UTF-8 with 400 invalid_request in the envelope', async () => {
    const auth = { authorization: `Bearer ${token}` };
    for (const path of ['/api/data/%ff/', '/api/%E0%A4%A/', '/api/data/customers/%C3%28/history/', '/api/data/customers/?email=%ff', '/api/data/customers/?email=%E0%A4%A', '/api/data/customers/?email=100%']) {
      const res = await rawRequest(api.base, 'GET', path, auth);
      expect([path, res.status, res.body]).toEqual([path, 400, { error: { code: 'invalid_request', message: expect.stringMatching(/malformed percent-encoding/) } }]);
    }
    // The answer is JSON, and the well-formed spellings still work.
    const bad = await fetch(`${api.base}/api/data/%ff/`, { headers: auth });
    expect([bad.status, bad.headers.get('content-type')]).toEqual([400, expect.stringMatching(/^application\/json/)]);
    expect(bad.headers.get('x-request-id')).toBeTruthy();
    expect((await rawRequest(api.base, 'GET', '/api/data/customers/?email=a%40b.example&limit=5', auth)).status).toBe(200);
  });
});

describe('slow clients: request bodies in flight are bounded by a memory budget (real HTTP on loopback)', () => {
  let api: TestApi;
  let token: string;
  const SIZE = 900_000;

  beforeAll(async () => {
    api = await startTestApi({ env: { MDS_BODY_LIMIT: '1MiB', MDS_BODY_MEMORY_BUDGET: '2MiB' }, contexts: [ProbeModule] });
    ({ token } = await seedUserToken(api.rt, 'budget-admin', ['admin']));
  });
  afterAll(async () => {
    await api?.close();
  });

  const budget = () => budgetOf(api, token);

  /** An upload of SIZE bytes whose headers and first 100 KB are sent; `finish` sends the rest. */
  async function upload() {
    const client = await RawClient.connect(api.base);
    const body = bodyOf(SIZE);
    client.write(head(token, SIZE) + body.slice(0, 100_000));
    return Object.assign(client, { finish: () => client.write(body.slice(100_000)) });
  }

  it('keeps a third large upload waiting, then answers it 503 with Retry-After; the next is admitted once the first two are done', async () => {
    const first = await upload();
    const second = await upload();
    await eventually(async () => expect(await budget()).toEqual({ bytes: 2 * SIZE, waiting: 0 }));
    const started = Date.now();
    const third = await upload();
    await eventually(async () => expect((await budget()).waiting).toBe(1));
    const refused = await third.answer();
    // It waited for room (2 s) before it was refused.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    expect(refused.body).toEqual({ error: { code: 'unavailable', message: expect.stringMatching(/memory budget \(2 MiB\).*[Tt]ry again/) } });
    await eventually(() => third.isClosed, { timeoutMs: 10_000 });

    first.finish();
    second.finish();
    for (const done of [first, second]) {
      const answer = await done.answer();
      expect([answer.status, (answer.body as { received?: { note?: string } }).received?.note?.length]).toEqual([201, SIZE - 11]);
      done.destroy();
    }
    await eventually(async () => expect(await budget()).toEqual({ bytes: 0, waiting: 0 }));
    const next = await upload();
    next.finish();
    expect((await next.answer()).status).toBe(201);
    next.destroy();
  });

  it('releases the share of a client that disconnects mid-body or while it waits', async () => {
    const held = await upload();
    const gone = await upload();
    await eventually(async () => expect((await budget()).bytes).toBe(2 * SIZE));
    const waiting = await upload();
    await eventually(async () => expect((await budget()).waiting).toBe(1));

    waiting.destroy();
    gone.destroy();
    await eventually(async () => expect(await budget()).toEqual({ bytes: SIZE, waiting: 0 }));
    // Admitted beside the one still held, at once: the departed share is free again.
    const later = await upload();
    await eventually(async () => expect(await budget()).toEqual({ bytes: 2 * SIZE, waiting: 0 }));
    later.finish();
    held.finish();
    expect((await later.answer()).status).toBe(201);
    expect((await held.answer()).status).toBe(201);
    later.destroy();
    held.destroy();
    await eventually(async () => expect(await budget()).toEqual({ bytes: 0, waiting: 0 }));
  });

  it('counts a chunked body, whose size is unknown, as the body limit', async () => {
    const client = await RawClient.connect(api.base);
    const body = bodyOf(1000);
    client.write(head(token, 'chunked') + `${(500).toString(16)}\r\n${body.slice(0, 500)}\r\n`);
    await eventually(async () => expect((await budget()).bytes).toBe(1024 * 1024));
    client.write(`${(500).toString(16)}\r\n${body.slice(500)}\r\n0\r\n\r\n`);
    expect((await client.answer()).status).toBe(201);
    client.destroy();
    await eventually(async () => expect((await budget()).bytes).toBe(0));
  });
});
