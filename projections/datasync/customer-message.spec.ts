import { customerMergeModel as model } from '#mds/customers';
import { customerMessage } from './customer-message';

const at = (position: number) => ({ ord: 10000, position, at: '2026-01-01T00:00:00Z' });
const NO_PERMISSIONS = { can_email: false, can_post: false, can_profile: false, can_push: false, can_sms: false };

describe('a customer as its datasync message shows it', () => {
  const ann = model.applyToCustomer(undefined, { external_id: 'K-1', email: 'Ann@example.com', phone_number: '+358401', $phone: '+358401', first_name: 'Ann', can_sms: true }, at(1));

  it('is the customer as retrieval shows it, the permissions it lacks false, matching aids left out', () => {
    expect(customerMessage(ann, undefined)).toEqual({ ...NO_PERMISSIONS, external_id: 'K-1', email: 'Ann@example.com', phone_number: '+358401', first_name: 'Ann', can_sms: true });
  });

  it('is, once deleted, the identifiers it has and is_deleted', () => {
    const deleted = model.applyToCustomer(ann, { external_id: 'K-1', is_deleted: true }, at(2));
    expect(customerMessage(deleted, ann)).toEqual({ external_id: 'K-1', email: 'Ann@example.com', phone_number: '+358401', is_deleted: true });
    const guest = model.applyToCustomer(model.applyToCustomer(undefined, { email: 'g@example.com' }, at(3)), { email: 'g@example.com', is_deleted: true }, at(4));
    expect(customerMessage(guest, undefined)).toEqual({ email: 'g@example.com', is_deleted: true });
  });

  it('is, once forgotten, the external id it had and is_forgotten, nothing personal', () => {
    const forgotten = model.applyToCustomer(ann, { email: 'ann@example.com', is_forgotten: true }, at(2));
    expect(customerMessage(forgotten, ann)).toEqual({ external_id: 'K-1', is_forgotten: true });
    const guest = model.applyToCustomer(undefined, { email: 'g@example.com' }, at(3));
    expect(customerMessage(model.applyToCustomer(guest, { email: 'g@example.com', is_forgotten: true }, at(4)), guest)).toEqual({ is_forgotten: true });
  });
});
