import { normalizePath, parseScopes, scopeAllows } from './scopes';

describe('path normalisation for scopes', () => {
  it.each([
    ['/api/data/customers/', '/api/data/customers'],
    ['/api//data///customers', '/api/data/customers'],
    ['/api/./data/customers/?limit=1#x', '/api/data/customers'],
    ['/api/data/x/../customers', '/api/data/customers'],
    ['/api/data%2Fcustomers', '/api/data/customers'],
    ['/api/data/%63ustomers', '/api/data/customers'],
    ['/API/Data', '/API/Data'],
    ['/', '/'],
  ])('%s → %s', (raw, normalized) => {
    expect(normalizePath(raw)).toBe(normalized);
  });

  it.each([['/../etc'], ['/api/%E0%A4%A'], ['relative/path'], ['/a%00b']])('refuses %s', (raw) => {
    expect(normalizePath(raw)).toBeUndefined();
  });
});

describe('scopes', () => {
  it('validates scopes on creation and keeps their paths as given, comparing them normalised', () => {
    expect(parseScopes([{ path: '/api/data/customers/' }, { method: 'get', path: '/x//y/' }])).toEqual([
      { path: '/api/data/customers/' },
      { method: 'GET', path: '/x//y/' },
    ]);
    expect(scopeAllows(parseScopes([{ path: '/api/data/customers/' }]), 'GET', '/api/data/customers')).toBe(true);
    expect(scopeAllows(parseScopes([{ method: 'get', path: '/x//y/' }]), 'GET', '/x/y/')).toBe(true);
    expect(parseScopes(undefined)).toEqual([]);
    expect(() => parseScopes({ path: '/x' })).toThrow(/list/);
    expect(() => parseScopes([{ path: 'x' }])).toThrow(/scopes\[0\]\.path/);
    expect(() => parseScopes([{ method: 'FETCH', path: '/x' }])).toThrow(/method/);
    expect(() => parseScopes([{ path: '/x', extra: 1 }])).toThrow(/unknown keys: extra/);
  });

  it('allows exactly the scoped paths and methods', () => {
    const scopes = parseScopes([{ method: 'GET', path: '/api/data/customers/' }, { path: '/api/customers/upload/' }]);
    expect(scopeAllows(scopes, 'GET', '/api/data/customers')).toBe(true);
    expect(scopeAllows(scopes, 'POST', '/api/data/customers/')).toBe(false);
    expect(scopeAllows(scopes, 'POST', '/api/customers/upload')).toBe(true);
    expect(scopeAllows(scopes, 'GET', '/api/data/products/')).toBe(false);
    expect(scopeAllows(scopes, 'GET', '/api/data/customers/../products')).toBe(false);
    expect(scopeAllows([], 'DELETE', '/anything')).toBe(true);
  });
});
