import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { deliveryHeaders, USER_AGENT } from './service-headers';

describe('the headers the service sets on a delivery', () => {
  it("names the service and its version from package.json in User-Agent", () => {
    const { version } = JSON.parse(readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8')) as { version: string };
    expect(USER_AGENT).toBe(`marketing-data-service/${version}`);
  });

  it('given a batch of messages 11..20 of a datasync datatarget, then the outlet\'s headers come first, then the content type, User-Agent, the numbers and the datatype', () => {
    const headers = deliveryHeaders({ 'X-Shop': 'web' }, { first: 11, last: 20, datatype: 'customers' });
    expect(Object.entries(headers)).toEqual([
      ['X-Shop', 'web'],
      ['content-type', 'application/json'],
      ['user-agent', USER_AGENT],
      ['webhook-first-message', '11'],
      ['webhook-last-message', '20'],
      ['webhook-datatype', 'customers'],
    ]);
  });

  it("given a messages datatarget and a test send, then there is no datatype and no message number; an outlet's own User-Agent is kept", () => {
    expect(deliveryHeaders({ 'User-Agent': 'shop-sync/2' }, { datatype: null })).toEqual({ 'User-Agent': 'shop-sync/2', 'content-type': 'application/json' });
  });

  it("given an outlet defined with a header the service now sets, then the service's value is sent, once", () => {
    expect(deliveryHeaders({ 'Webhook-First-Message': '999' }, { first: 1, last: 1 })).toEqual({ 'content-type': 'application/json', 'user-agent': USER_AGENT, 'webhook-first-message': '1', 'webhook-last-message': '1' });
  });
});
