import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '#mds/testing/database';
import { customerViewSql } from './customers.queries';

// Retrieval writes a customer's JSON as text around the stored document's text (no jsonb rebuilt per
// record): every stored document must still come out as valid JSON equal to defaults, fields, id, updated_at.
describe('customerViewSql', () => {
  let db: TestDatabase;
  let client: Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    client = new Client({ connectionString: db.url });
    await client.connect();
  });

  afterAll(async () => {
    await client.end();
    await db.drop();
  });

  const DEFAULTS = { can_email: false, can_post: false, can_profile: false, can_push: false, can_sms: false };
  const documents: Array<Record<string, unknown>> = [
    {},
    { external_id: 'A-1' },
    { email: 'a@example.com', can_email: true, can_sms: false, can_post: true, can_push: true, can_profile: true },
    { first_name: 'Åsa {"x": 1}, }', city: 'Zürich 😀', tags: ['vip', 'ä'], ACME__score: 12.5 },
    { last_name: '{', can_profile: true, nested: { a: [1, { b: null }] } },
  ];

  it.each(documents.map((d, i) => [i, d]))('renders document %i as its fields, the defaults it lacks, id and updated_at', async (i, data) => {
    const { rows } = await client.query<{ text: string }>(
      `SELECT ${customerViewSql('c')} AS text
         FROM (SELECT $1::bigint AS customer_id, $2::jsonb AS data, false AS is_forgotten, '2026-03-01T09:30:00.123456Z'::timestamptz AS updated_at) c`,
      [1000 + i, JSON.stringify(data)],
    );
    expect(JSON.parse(rows[0].text)).toEqual({ ...DEFAULTS, ...data, id: 1000 + i, updated_at: '2026-03-01T09:30:00.123000Z' });
    // No key twice (JSON.parse would keep the last silently).
    const keys = [...rows[0].text.matchAll(/"([a-zA-Z_]+)": /g)].map((m) => m[1]);
    expect(keys.filter((k) => k === 'id' || k.startsWith('can_'))).toEqual([...new Set(keys.filter((k) => k === 'id' || k.startsWith('can_')))]);
  });
});
