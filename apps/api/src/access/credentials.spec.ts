import { extractCredentials } from './credentials';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('credential extraction', () => {
  it('reads the four token forms and username/password', () => {
    expect(extractCredentials({ headers: { authorization: 'Bearer abc' }, query: {} })).toEqual({ kind: 'token', token: 'abc', via: 'bearer' });
    expect(extractCredentials({ headers: { authorization: 'Token abc' }, query: {} })).toEqual({ kind: 'token', token: 'abc', via: 'token' });
    expect(extractCredentials({ headers: { authorization: `Basic ${b64('access-token:abc')}` }, query: {} })).toEqual({ kind: 'token', token: 'abc', via: 'basic' });
    expect(extractCredentials({ headers: {}, query: { 'access-token': 'abc' } })).toEqual({ kind: 'token', token: 'abc', via: 'query' });
    expect(extractCredentials({ headers: { authorization: `Basic ${b64('ada:pa:ss')}` }, query: {} })).toEqual({ kind: 'password', username: 'ada', password: 'pa:ss' });
  });

  it('prefers the header over the query and names what is malformed', () => {
    expect(extractCredentials({ headers: { authorization: 'Bearer h' }, query: { 'access-token': 'q' } })).toMatchObject({ token: 'h' });
    expect(extractCredentials({ headers: { authorization: 'Digest x' }, query: {} })).toMatchObject({ kind: 'malformed', reason: expect.stringMatching(/Digest/) });
    expect(extractCredentials({ headers: { authorization: `Basic ${b64('nocolon')}` }, query: {} })).toMatchObject({ kind: 'malformed' });
    expect(extractCredentials({ headers: {}, query: {} })).toEqual({ kind: 'none' });
  });
});
