import { mergeRecord, splitRecord } from './personal-data-store';

// What leaves a record for the personal-data list, and that the two halves make the record again.
describe('splitRecord', () => {
  it('takes the personal fields out, their keys sorted, and leaves the rest as it was', () => {
    const record = { external_id: 'A-1', phone_number: '+358401', email: 'a@example.com', city: 'Turku', first_name: 'Anna', tags: ['vip'] };
    const { rest, personal } = splitRecord(record, ['phone_number', 'email', 'first_name', 'last_name']);
    expect(rest).toEqual({ external_id: 'A-1', city: 'Turku', tags: ['vip'] });
    expect(Object.keys(personal!)).toEqual(['email', 'first_name', 'phone_number']);
    expect(mergeRecord(rest, personal)).toEqual(record);
  });

  it('gives null when a record has none, and splits a group (a sale\'s fields) inside it', () => {
    expect(splitRecord({ external_id: 'A-2', city: 'Oulu' }, ['email'])).toEqual({ rest: { external_id: 'A-2', city: 'Oulu' }, personal: null });
    const sale = { sale_external_id: 'S-1', sale_email: 'b@example.com', fields: { note: 'x', buyer_name: 'Bo' } };
    const { rest, personal } = splitRecord(sale, ['sale_email', 'fields.buyer_name']);
    expect(rest).toEqual({ sale_external_id: 'S-1', fields: { note: 'x' } });
    expect(personal).toEqual({ fields: { buyer_name: 'Bo' }, sale_email: 'b@example.com' });
    expect(Object.keys(personal!)).toEqual(['fields', 'sale_email']);
    expect(mergeRecord(rest, personal)).toEqual(sale);
  });
});
