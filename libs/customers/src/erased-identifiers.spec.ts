import { createHash } from 'node:crypto';
import { erasedIdentifierText, erasedIdentifierWarnings, type ErasedIdentifiers } from './erased-identifiers';

// Given the identifiers a forgetting erased, when customers are imported, then each record naming one
// (as the merge matches it) gets a warning; forgettings and everything else get none.
const hash = (v: string) => createHash('sha256').update(`k\n${v}`).digest('hex');
const erasedOf = (ids: Array<[string, string]>): ErasedIdentifiers & { asked: number } => {
  const kept = new Set(ids.map(([kind, value]) => hash(erasedIdentifierText(kind, value))));
  const port = {
    asked: 0,
    any: async () => kept.size > 0,
    among: async (hashes: string[]) => {
      port.asked++;
      return new Set(hashes.filter((h) => kept.has(h)));
    },
  };
  return port;
};

describe('warnings for identifiers of forgotten customers', () => {
  it('names each record and field whose identifier was erased, matching e-mails in any case and phones normalised', async () => {
    const erased = erasedOf([['email', 'ada@example.com'], ['phone', '+358401119999'], ['external_id', 'ADA-1']]);
    const warnings = await erasedIdentifierWarnings(
      [
        { index: 0, record: { email: 'ADA@Example.com' } },
        { index: 1, record: { external_id: 'ADA-1', $phone: '+358401119999', phone_number: '040 111 9999' } },
        { index: 2, record: { external_id: 'BOB-1', email: 'bob@example.com' } },
        { index: 3, record: { email: 'ada@example.com', is_forgotten: true } },
      ],
      erased,
      hash,
    );
    expect(warnings.map((w) => [w.index, w.field, w.code])).toEqual([
      [0, 'email', 'forgotten_identifier'],
      [1, 'external_id', 'forgotten_identifier'],
      [1, 'phone_number', 'forgotten_identifier'],
    ]);
    expect(warnings[0].message).toMatch(/starts a new customer, with no link to the forgotten one/);
  });

  it('hashes and asks nothing while nothing was ever forgotten', async () => {
    const erased = erasedOf([]);
    let hashed = 0;
    expect(await erasedIdentifierWarnings([{ index: 0, record: { email: 'a@example.com' } }], erased, (v) => (hashed++, hash(v)))).toEqual([]);
    expect([hashed, erased.asked]).toEqual([0, 0]);
  });
});
