import { applyCustomerRecord, applyCustomerUpdate, emptyCustomers, identifierHash, listUpdate, type CustomerPatch, type CustomersState } from './customer-merge.model';

/** Applies records in log order, one chunk each, as the projection numbers them (ord = position × 10000 + n). */
function given(...records: CustomerPatch[]): CustomersState {
  return records.reduce((state, r, i) => applyCustomerRecord(state, r, { ord: (i + 1) * 10000 + 1, position: i + 1, at: `2026-01-0${Math.min(i + 1, 9)}T00:00:00.000Z` }), emptyCustomers());
}
const when = (state: CustomersState, record: CustomerPatch, n = 99) => applyCustomerRecord(state, record, { ord: n * 10000 + 1, position: n, at: '2026-02-01T00:00:00.000Z' });
const ids = (state: CustomersState) => [...state.customers.keys()].sort((a, b) => a - b);
const customer = (state: CustomersState, id: number) => state.customers.get(id)!;

describe('the customer merge rules', () => {
  describe('finding the customer', () => {
    it('given a customer, when a record names its external_id, then that customer is patched (whatever else it names)', () => {
      const then = when(given({ external_id: 'A', email: 'a@example.com' }), { external_id: 'A', email: 'new@example.com', first_name: 'Ada' });
      expect(ids(then)).toEqual([10001]);
      expect(customer(then, 10001)).toMatchObject({ email: 'new@example.com', data: { external_id: 'A', email: 'new@example.com', first_name: 'Ada' }, updated_position: 99 });
    });

    it('without an external_id, the phone is tried before the e-mail', () => {
      const state = given({ external_id: 'P', $phone: '+358401', phone_number: '0401' }, { external_id: 'M', email: 'm@example.com' });
      const then = when(state, { $phone: '+358401', phone_number: '0401', email: 'm@example.com', city: 'Oulu' });
      expect([customer(then, 10001).data.city, customer(then, 20001).data.city]).toEqual(['Oulu', undefined]);
    });

    it('matches the e-mail case-insensitively, and picks the oldest customer when several share it', () => {
      const state = given({ external_id: 'X', email: 'Same@Example.com' }, { external_id: 'Y', email: 'same@example.com' });
      const then = when(state, { email: 'SAME@example.com', city: 'Turku' });
      expect([customer(then, 10001).data.city, customer(then, 20001).data.city]).toEqual(['Turku', undefined]);
    });

    it('gives an unknown external_id a guest with its phone or e-mail, but never takes over another external_id', () => {
      const state = given({ email: 'guest@example.com' }, { external_id: 'OWNED', email: 'owned@example.com' });
      const joined = when(state, { external_id: 'NEW', email: 'guest@example.com' });
      expect(customer(joined, 10001).external_id).toBe('NEW');
      const separate = when(state, { external_id: 'OTHER', email: 'owned@example.com' });
      expect(ids(separate)).toEqual([10001, 20001, 990001]);
      expect(customer(separate, 20001).external_id).toBe('OWNED');
    });

    it('finds a customer by cb_token only for an event patch ($token), never for an import sending cb_token', () => {
      const state = given({ external_id: 'T', cb_token: 'tok-1' });
      expect(customer(when(state, { $token: 'tok-1', can_sms: true, $no_create: true }), 10001).data.can_sms).toBe(true);
      expect(ids(when(state, { email: 'x@example.com', cb_token: 'tok-1' }))).toEqual([10001, 990001]);
    });

    it('creates a customer with the record\'s place in the log as its id, unless the patch may not create one', () => {
      expect(customer(given({ email: 'n@example.com' }), 10001)).toMatchObject({ customer_id: 10001, email: 'n@example.com', created_at: '2026-01-01T00:00:00.000Z' });
      expect(ids(when(emptyCustomers(), { email: 'u@example.com', 'mailing_lists.remove': ['news'], $no_create: true }))).toEqual([]);
    });
  });

  describe('patching', () => {
    it('changes only the keys sent, removes a key sent as "", and keeps matching aids out of the data', () => {
      const then = when(given({ external_id: 'A', first_name: 'Ada', city: 'Oulu', $phone: '+3581', phone_number: '01' }), { external_id: 'A', city: '', last_name: 'L' });
      expect(customer(then, 10001).data).toEqual({ external_id: 'A', first_name: 'Ada', phone_number: '01', last_name: 'L' });
    });

    it('replaces a list when sent, then appends (in order, without repeats), then removes', () => {
      expect(listUpdate(['a', 'b'], undefined, ['c', 'a', 'd'], ['b'])).toEqual(['a', 'c', 'd']);
      expect(listUpdate(['a', 'b'], ['x', 'x'], ['y'], undefined)).toEqual(['x', 'y']);
      const then = when(given({ external_id: 'A', tags: ['vip', 'old'] }), { external_id: 'A', 'tags.add': ['new', 'vip'], 'tags.remove': ['old'] });
      expect(customer(then, 10001).data.tags).toEqual(['vip', 'new']);
    });

    it('sets the phone column only when phone_number is sent ("" clears it), and lower-cases the e-mail column', () => {
      const state = given({ external_id: 'A', $phone: '+3581', phone_number: '01', email: 'A@Example.com' });
      expect(customer(when(state, { external_id: 'A', city: 'X' }), 10001).phone).toBe('+3581');
      expect(customer(when(state, { external_id: 'A', phone_number: '' }), 10001)).toMatchObject({ phone: null, email: 'a@example.com' });
    });

    it('keeps a deletion for good', () => {
      const then = when(given({ external_id: 'D', is_deleted: true }), { external_id: 'D', is_deleted: false, city: 'Kemi' });
      expect(customer(then, 10001)).toMatchObject({ is_deleted: true, data: { city: 'Kemi' } });
    });

    it('never keeps consent_source on the customer: it is about the change (a record or a bulk update), read from the log', () => {
      const state = given({ external_id: 'S', can_email: true, consent_source: 'signup-form' });
      expect(customer(state, 10001).data).toEqual({ external_id: 'S', can_email: true });
      const then = when(state, { external_id: 'S', can_sms: true, consent_source: '' });
      expect(customer(then, 10001).data).toEqual({ external_id: 'S', can_email: true, can_sms: true });
      const updated = applyCustomerUpdate(then, [10001], { can_email: false, consent_source: 'cleanup' }, { position: 5, at: '2026-03-01T00:00:00.000Z' });
      expect(customer(updated, 10001).data).toEqual({ external_id: 'S', can_email: false, can_sms: true });
    });

    it('applies a bulk update without identifiers or resurrection: the patch, and is_deleted for good', () => {
      const state = given({ external_id: 'B', tags: ['a'] });
      const then = applyCustomerUpdate(state, [10001], { 'tags.add': ['b'], is_deleted: true }, { position: 5, at: '2026-03-01T00:00:00.000Z' });
      expect(customer(then, 10001)).toMatchObject({ is_deleted: true, external_id: 'B', data: { external_id: 'B', tags: ['a', 'b'] }, updated_position: 5 });
    });
  });

  describe('forgetting', () => {
    const forgotten = () => when(given({ external_id: 'F', email: 'f@example.com', $phone: '+3589', phone_number: '09' }), { external_id: 'F', is_forgotten: true }, 5);

    it('empties the customer, drops its identifiers and remembers only their hashes, with whose they were', () => {
      const then = forgotten();
      expect(customer(then, 10001)).toMatchObject({ data: { is_forgotten: true }, external_id: null, phone: null, email: null, is_forgotten: true });
      expect([...then.forgotten.values()].map((f) => [f.kind, f.customer_id]).sort()).toEqual([['email', 10001], ['external_id', 10001], ['phone', 10001]]);
      expect(then.forgotten.has(`email:${identifierHash('f@example.com')}`)).toBe(true);
      expect(JSON.stringify([...then.forgotten.values()])).not.toContain('f@example.com');
    });

    it('starts a new customer for a later record naming an identifier the forgotten customer had, linked to nothing of it', () => {
      const then = forgotten();
      const records: CustomerPatch[] = [{ email: 'f@example.com', first_name: 'Back' }, { $phone: '+3589', phone_number: '09' }, { external_id: 'F' }];
      records.forEach((record, i) => {
        const after = when(then, record, 6 + i);
        expect(ids(after)).toEqual([10001, (6 + i) * 10000 + 1]);
        expect(customer(after, 10001)).toEqual(customer(then, 10001));
        expect(customer(after, (6 + i) * 10000 + 1).data).toEqual(Object.fromEntries(Object.entries(record).filter(([k]) => !k.startsWith('$'))));
      });
    });

    it('creates an empty forgotten customer for a forgetting that finds none', () => {
      const then = when(emptyCustomers(), { email: 'never@example.com', is_forgotten: true }, 3);
      expect(customer(then, 30001)).toMatchObject({ is_forgotten: true, email: null });
      expect(ids(when(then, { email: 'never@example.com' }, 4))).toEqual([30001, 40001]);
    });
  });
});
