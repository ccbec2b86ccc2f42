import { refusal } from '#mds/testing/given';
import { privateDestination } from './delivery/destination';
import { refusePrivateDestination, type AddressLookup } from './outlet-settings';

/** A DNS answering from a table; a name it does not know fails as NXDOMAIN does. */
const dns = (table: Record<string, string[]>): AddressLookup & { asked: string[] } => {
  const asked: string[] = [];
  const lookup = async (name: string) => {
    asked.push(name);
    if (!table[name]) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return table[name].map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(lookup, { asked });
};

describe('where an outlet may point while OUTLET_ALLOW_PRIVATE is off', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1 is a loopback address'],
    ['[::1]', '::1 is a loopback address'],
    ['10.1.2.3', '10.1.2.3 is a private address'],
    ['169.254.169.254', '169.254.169.254 is a link-local address'],
    ['100.64.0.1', '100.64.0.1 is a carrier-grade NAT address'],
    ['[fd00::1]', 'fd00::1 is a unique-local address'],
    ['localhost', 'localhost is a loopback name'],
    ['api.localhost', 'api.localhost is a loopback name'],
    ['93.184.215.14', undefined],
  ])('given the literal or reserved name %s, then it is judged without DNS: %s', (hostname, problem) => {
    expect(privateDestination(hostname, undefined)).toBe(problem);
  });

  it('given a name, then it is refused only when every address it resolves to is refused; one that does not resolve passes', () => {
    expect(privateDestination('intranet.example', ['10.0.0.5', '192.168.1.9'])).toBe('intranet.example resolves only to refused addresses (10.0.0.5 is a private address; 192.168.1.9 is a private address)');
    expect(privateDestination('mixed.example', ['10.0.0.5', '93.184.215.14'])).toBeUndefined();
    expect(privateDestination('gone.example', undefined)).toBeUndefined();
    expect(privateDestination('empty.example', [])).toBeUndefined();
  });

  it('when a URL to a private address or a name resolving only to one is given, then it is refused as invalid_request naming the setting', async () => {
    const lookup = dns({ 'intranet.example': ['10.0.0.5'], 'shop.example': ['93.184.215.14'] });
    for (const url of ['http://127.0.0.1:8080/hook', 'http://2130706433/hook', 'http://[::1]/hook', 'https://LOCALHOST./hook', 'https://intranet.example/hook']) {
      const refused = await refusal(() => refusePrivateDestination(url, { allowPrivate: false, lookup }));
      expect([url, refused.status, refused.code]).toEqual([url, 400, 'invalid_request']);
      expect(refused.message).toMatch(/^request\.url: .*OUTLET_ALLOW_PRIVATE=true$/);
    }
    await expect(refusePrivateDestination('https://shop.example/hook', { allowPrivate: false, lookup })).resolves.toBeUndefined();
    await expect(refusePrivateDestination('https://not-yet.example/hook', { allowPrivate: false, lookup })).resolves.toBeUndefined();
    // Literals and localhost names are judged without asking DNS.
    expect(lookup.asked).toEqual(['intranet.example', 'shop.example', 'not-yet.example']);
  });

  it('when the name does not resolve in time, then it passes (it may resolve later; the worker checks every connection)', async () => {
    const slow: AddressLookup = () => new Promise(() => undefined);
    const started = Date.now();
    await expect(refusePrivateDestination('https://slow.example/hook', { allowPrivate: false, lookup: slow }, 50)).resolves.toBeUndefined();
    // Ended by its 50 ms limit, not by the lookup (which never answers); the bound leaves a loaded runner room.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('given OUTLET_ALLOW_PRIVATE=true, then any URL passes and DNS is not asked', async () => {
    const lookup = dns({});
    await expect(refusePrivateDestination('http://127.0.0.1/hook', { allowPrivate: true, lookup })).resolves.toBeUndefined();
    await expect(refusePrivateDestination('http://intranet.example/hook', { allowPrivate: true, lookup })).resolves.toBeUndefined();
    expect(lookup.asked).toEqual([]);
  });
});
