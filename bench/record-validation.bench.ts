// Why bulk records are validated by compiled JSON schemas (ajv) and management requests by
// class-validator DTOs: the cost per 1,000 customer records of each, in one process, beside the
// baseline that every request pays anyway (JSON.parse of the body). `npm run bench`.
import 'reflect-metadata';
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { plainToInstance, Transform } from 'class-transformer';
import { IsArray, IsBoolean, IsOptional, IsString, Matches, MaxLength, validateSync } from 'class-validator';
import { customerImport } from '#mds/customers';
import { DEFAULT_SETTINGS } from '#mds/settings';
import { median } from './bench-database';

const RECORDS = 1000;
const ROUNDS = Number(process.env.BENCH_VALIDATION_ROUNDS ?? 200);
const REPS = Number(process.env.BENCH_REPS ?? 3);

const customers = Array.from({ length: RECORDS }, (_, n) => ({
  external_id: `B-${n}`, email: `b${n}@example.com`, phone_number: `+35840${String(n).padStart(7, '0')}`, first_name: `First${n}`,
  last_name: `Last${n}`, city: 'Helsinki', zip_code: '00100', country: 'fi', can_email: n % 2 === 0 ? 'true' : 0, date_joined: '2024-03-01T10:00:00Z',
  tags: 'vip, regular', ACME__tier: 'gold', shop_id: 'web',
}));
const body = JSON.stringify({ customers });

const lenientBoolean = ({ value }: { value: unknown }) => (value === 'true' || value === 1 || value === '1' ? true : value === 'false' || value === 0 || value === '0' ? false : value);
const list = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : value);

/** The same customer record as a class-validator DTO: the same coercions (class-transformer) and checks. */
class CustomerRecordDto {
  @IsOptional() @Matches(/^[A-Za-z0-9-]{1,256}$/) external_id?: string;
  @IsOptional() @MaxLength(320) @Matches(/^[^\s@]+@[^\s@]+\.[^\s@]+$/) email?: string;
  @IsOptional() @IsString() @MaxLength(64) phone_number?: string;
  @IsOptional() @IsString() @MaxLength(1000) first_name?: string;
  @IsOptional() @IsString() @MaxLength(1000) last_name?: string;
  @IsOptional() @IsString() @MaxLength(1000) city?: string;
  @IsOptional() @IsString() @MaxLength(1000) zip_code?: string;
  @IsOptional() @Transform(({ value }) => (typeof value === 'string' ? value.toUpperCase() : value)) @Matches(/^[A-Z]{2}$/) country?: string;
  @IsOptional() @Transform(lenientBoolean) @IsBoolean() can_email?: boolean;
  @IsOptional() @Matches(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/) date_joined?: string;
  @IsOptional() @Transform(list) @IsArray() @IsString({ each: true }) tags?: string[];
  @IsOptional() @IsString() @MaxLength(1000) shop_id?: string;
}

/** Milliseconds per 1,000 records of `work` over the parsed body, median of REPS runs of ROUNDS rounds. */
function perThousand(work: (records: unknown[]) => void): number {
  const times: number[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const started = performance.now();
    for (let round = 0; round < ROUNDS; round++) work((JSON.parse(body) as { customers: unknown[] }).customers);
    times.push((performance.now() - started) / ROUNDS);
  }
  return median(times);
}

function main() {
  const kind = customerImport(DEFAULT_SETTINGS);
  let sink = 0;
  // Warm each path up so the JIT has seen it before it is timed.
  const parse = () => perThousand((records) => (sink += records.length));
  const ajv = () => perThousand((records) => records.forEach((r, i) => (sink += Object.keys(kind.validate(r, i)).length)));
  const classValidator = () =>
    perThousand((records) => {
      for (const r of records) {
        const dto = plainToInstance(CustomerRecordDto, r);
        sink += validateSync(dto, { forbidUnknownValues: true }).length + Object.keys(dto).length;
      }
    });
  parse(); ajv(); classValidator();
  const base = parse();
  const compiled = ajv();
  const decorated = classValidator();
  console.log(`### Record validation: compiled schemas (ajv) against class-validator\n\n${os.cpus().length} cores, Node ${process.version}; ${RECORDS.toLocaleString('en')} customer records (13 fields, lenient values), ${ROUNDS} rounds, median of ${REPS}; baseline: JSON.parse of the request body, which every import pays.\n`);
  console.log('| per 1,000 records | ms | over the parse (ms) |');
  console.log('|---|---:|---:|');
  console.log(`| baseline: JSON.parse of the body | ${base.toFixed(2)} | — |`);
  console.log(`| parse + coerce + compiled schema (ajv), as imports do | ${compiled.toFixed(2)} | ${(compiled - base).toFixed(2)} |`);
  console.log(`| parse + class-transformer + class-validator DTO | ${decorated.toFixed(2)} | ${(decorated - base).toFixed(2)} |`);
  console.log(`\nclass-validator costs ${((decorated - base) / Math.max(compiled - base, 1e-6)).toFixed(0)}× what the compiled schema costs over the parse (${(decorated / compiled).toFixed(1)}× in all).`);
  if (sink === 0) throw new Error('nothing was validated');
}

main();
