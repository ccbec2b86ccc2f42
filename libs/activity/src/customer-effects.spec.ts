import { customerEffect, NO_CREATE_KEY, TOKEN_KEY } from '.';

const base = { date: '2024-01-01T00:00:00Z' };

describe('what an event does to its customer', () => {
  it('subscribes by e-mail, creating the customer, with the accompanying fields', () => {
    expect(customerEffect({ ...base, type: 'MAIL_SUBSCRIBE', email: 'a@b.fi', mailing_lists: ['news'], first_name: 'A', label: 'x' })).toEqual({
      email: 'a@b.fi', first_name: 'A', can_email: true, 'mailing_lists.add': ['news'],
    });
  });

  it('does not create a customer from a subscription without the contact subscribed', () => {
    expect(customerEffect({ ...base, type: 'MAIL_SUBSCRIBE', customer_id: 'C1', mailing_lists: ['news'] })).toMatchObject({ external_id: 'C1', [NO_CREATE_KEY]: true });
    expect(customerEffect({ ...base, type: 'SMS_SUBSCRIBE', email: 'a@b.fi' })).toMatchObject({ can_sms: true, [NO_CREATE_KEY]: true });
  });

  it('unsubscribes from the lists named, or from all of them and the permission with "_"', () => {
    expect(customerEffect({ ...base, type: 'MAIL_UNSUBSCRIBE', email: 'a@b.fi', mailing_lists: ['news'] })).toEqual({ email: 'a@b.fi', 'mailing_lists.remove': ['news'], [NO_CREATE_KEY]: true });
    expect(customerEffect({ ...base, type: 'MAIL_UNSUBSCRIBE', customer_token: 't', mailing_lists: ['_'] })).toEqual({ [TOKEN_KEY]: 't', mailing_lists: [], can_email: false, [NO_CREATE_KEY]: true });
  });

  it('turns SMS off without creating, and leaves other types alone', () => {
    expect(customerEffect({ ...base, type: 'SMS_UNSUBSCRIBE', phone_number: '+358401', $phone: '+358401' })).toEqual({ phone_number: '+358401', $phone: '+358401', can_sms: false, [NO_CREATE_KEY]: true });
    expect(customerEffect({ ...base, type: 'BROWSE', email: 'a@b.fi', path: '/' })).toBeUndefined();
  });
});
