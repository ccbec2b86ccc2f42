import { ForgetCustomerCommand, forgetRecord, identifierKind } from './forget-customer.command';

describe('forgetting a customer by an identifier', () => {
  it.each([
    ['ada@example.com', false, 'email'],
    ['+358 40 123 4567', false, 'phone_number'],
    ['(040) 123-4567', false, 'phone_number'],
    ['A-1043', false, 'external_id'],
    ['1043', false, 'external_id'],
    ['4012345678', true, 'external_id'],
    ['4012345678', false, 'phone_number'],
    ['shop+1@x', true, 'email'],
  ])('given %s on the command line (a customer has it as external id: %s), names it as %s', (value, isExternalId, kind) => {
    expect(identifierKind(value, isExternalId)).toBe(kind);
  });

  it('when run, imports one atomic record that forgets the customer the identifier finds, as the caller', () => {
    const command = new ForgetCustomerCommand('email', 'ada@example.com', 'cli');
    expect(command.request).toEqual({ records: [{ email: 'ada@example.com', is_forgotten: true }], atomic: true, caller: 'cli' });
    expect(forgetRecord('external_id', 'A-1')).toEqual({ external_id: 'A-1', is_forgotten: true });
  });
});
