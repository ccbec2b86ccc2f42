import { Writable } from 'node:stream';
import { accessTokenChecksum, isWellFormedToken, TOKEN_PREFIX } from './access-token-format';
import { createLogger, prettyDestination, redactAccessTokens, redactUrl } from './logging';

function capture(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

const SECRETS = ['mds_headerSecret', 'hunter2', 'mds_bodyToken', 'mds_nestedToken', '123456', 'mds_querySecret', 'session=abc'];

function logWithSecrets(logger: ReturnType<typeof createLogger>): void {
  logger.warn(
    {
      req: { headers: { authorization: 'Bearer mds_headerSecret', cookie: 'session=abc', 'service-totp-code': '123456' } },
      password: 'hunter2',
      token: 'mds_bodyToken',
      created: { token: 'mds_nestedToken' },
      url: redactUrl('/api/x?access-token=mds_querySecret&limit=5'),
      ms: 812,
    },
    'slow request',
  );
}

describe('log lines', () => {
  it('for people: time, level and message on one line, then the fields, with no secret', () => {
    const out = capture();
    logWithSecrets(createLogger('info', 'mds', prettyDestination(out.stream)));
    const text = out.text();
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\] WARN: slow request \{.*"url":"\/api\/x\?access-token=\[REDACTED\]&limit=5","ms":812\}\n$/);
    expect(text).not.toContain('{"level"');
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  });

  it('for people: an error shows its stack on lines of its own', () => {
    const out = capture();
    createLogger('info', 'mds', prettyDestination(out.stream)).error({ err: new Error('boom') }, 'request failed');
    expect(out.text()).toMatch(/^\[\d\d:\d\d:\d\d\] ERROR: request failed\s*\n\s+err: \{\n[\s\S]*\n\s+Error: boom\n\s+at /);
  });

  it('as JSON lines: the same entry, with no secret', () => {
    const out = capture();
    logWithSecrets(createLogger('info', 'mds', out.stream));
    const entry = JSON.parse(out.text()) as Record<string, any>;
    expect(entry).toMatchObject({ level: 'warn', msg: 'slow request', password: '[REDACTED]', token: '[REDACTED]', ms: 812 });
    expect(entry.req.headers.authorization).toBe('[REDACTED]');
    for (const secret of SECRETS) expect(out.text()).not.toContain(secret);
  });
});

/** A token as libs/access mints them: prefix, 32 base62 characters, their checksum. */
function accessToken(body: string): string {
  return `${TOKEN_PREFIX}${body}${accessTokenChecksum(body)}`;
}
const TOKEN = accessToken('Ab3dEfGh1jKlMn0pQrStUvWxYz012345');
const OTHER = accessToken('ZZZZyyyyXXXXwwwwVVVVuuuuTTTTssss');
/** Every character %-escaped: how a client that encodes everything sends it. */
const encodeAll = (text: string, hex: (h: string) => string = (h) => h.toUpperCase()) =>
  [...Buffer.from(text)].map((b) => `%${hex(b.toString(16).padStart(2, '0'))}`).join('');

describe('access tokens in logged URLs', () => {
  it('are minted in the format the logger recognises', () => {
    expect(isWellFormedToken(TOKEN)).toBe(true);
    expect(isWellFormedToken(`${TOKEN.slice(0, -1)}${TOKEN.endsWith('a') ? 'b' : 'a'}`)).toBe(false);
  });

  it.each([
    ['access-token'],
    ['access%2Dtoken'],
    ['access%2dtoken'],
    ['%61ccess-token'],
    ['acc%65ss%2Dtok%65n'],
    [encodeAll('access-token')],
    [encodeAll('access-token', (h) => h.toLowerCase())],
    ['access%252Dtoken'],
    ['ACCESS-TOKEN'],
    ['Access%2DToken'],
    ['access_token'],
    ['access%5Ftoken'],
    ['token'],
    ['%74oken'],
  ])('%s: the value is redacted, the rest of the URL kept in order', (name) => {
    const url = `/api/data/shops/?limit=5&${name}=${TOKEN}&x=1`;
    expect(redactUrl(url)).toBe(`/api/data/shops/?limit=5&${name}=[REDACTED]&x=1`);
  });

  it('every mix of escaped and plain characters of access-token, value encoded or not', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 300; i++) {
      const name = [...'access-token'].map((c) => (random() < 0.5 ? c : encodeAll(c, random() < 0.5 ? (h) => h : (h) => h.toUpperCase()))).join('');
      expect(decodeURIComponent(name)).toBe('access-token');
      const value = random() < 0.5 ? TOKEN : encodeAll(TOKEN);
      const logged = redactUrl(`/api/data/shops/?${name}=${value}`);
      expect(logged).toBe(`/api/data/shops/?${name}=[REDACTED]`);
    }
  });

  it('after `#` too, which the router also reads as the start of the query', () => {
    expect(redactUrl(`/api/data/shops/#access%2Dtoken=${TOKEN}&limit=5`)).toBe('/api/data/shops/#access%2Dtoken=[REDACTED]&limit=5');
  });

  it('every one of a repeated parameter, whatever its spelling', () => {
    const url = `/api/data/shops/?access-token=${TOKEN}&limit=5&access%2Dtoken=${OTHER}&access-token=plain-secret`;
    expect(redactUrl(url)).toBe('/api/data/shops/?access-token=[REDACTED]&limit=5&access%2Dtoken=[REDACTED]&access-token=[REDACTED]');
  });

  it('other credential-like names, matched decoded and in any case', () => {
    const names = ['password', 'api_key', 'apikey', 'API%5FKEY', 'key', 'secret', 'signature', 'sig', 'code', 'tokens', 'refresh_token', 'client_secret', 'Old%2DPassword', 'authorization', 'oauth'];
    const url = `/x?${names.map((n) => `${n}=s3cr3t`).join('&')}&limit=5`;
    expect(redactUrl(url)).toBe(`/x?${names.map((n) => `${n}=[REDACTED]`).join('&')}&limit=5`);
  });

  it('a token-shaped value under any name, in the path, or as a bare name', () => {
    expect(redactUrl(`/api/data/products/?q=${TOKEN}&tags=vip`)).toBe('/api/data/products/?q=[REDACTED]&tags=vip');
    expect(redactUrl(`/api/data/products/?q=${encodeAll(TOKEN)}`)).toBe('/api/data/products/?q=[REDACTED]');
    expect(redactUrl(`/api/data/products/?q=Bearer+${TOKEN}`)).toBe('/api/data/products/?q=[REDACTED]');
    expect(redactUrl(`/api/${TOKEN}/products/`)).toBe('/api/[REDACTED]/products/');
    expect(redactUrl(`/api/x${encodeAll(TOKEN)}/products/`)).toBe('/api/[REDACTED]/products/');
    expect(redactUrl(`/api/data/shops/?${TOKEN}`)).toBe('/api/data/shops/?[REDACTED]');
  });

  it('leaves what is no credential readable', () => {
    const plain = '/api/data/products/?limit=5&keys=a,b&tags=vip&updated_since=2024-01-01T00:00:00Z&after=MTIz&sort=name%20asc';
    expect(redactUrl(plain)).toBe(plain);
    const notAToken = `${TOKEN.slice(0, -1)}${TOKEN.endsWith('a') ? 'b' : 'a'}`;
    expect(redactUrl(`/api/data/products/?q=${notAToken}`)).toBe(`/api/data/products/?q=${notAToken}`);
    expect(redactUrl('/api/data/shops/?access-token=')).toBe('/api/data/shops/?access-token=');
    expect(redactUrl('/health')).toBe('/health');
  });
});

describe('personal data in logged URLs', () => {
  it('masks personal filters, the rest of the URL kept in order', () => {
    const url = '/api/data/customers/?limit=5&email=jane.doe%40example.com&phone=%2B31612345678&phone_number=0612345678&tags=vip';
    expect(redactUrl(url)).toBe('/api/data/customers/?limit=5&email=[personal]&phone=[personal]&phone_number=[personal]&tags=vip');
    expect(redactUrl('/api/data/sales/?sale_email=j%40x.nl&sale_phone_number=0612345678&sale_customer_id=c-1&shop=web')).toBe(
      '/api/data/sales/?sale_email=[personal]&sale_phone_number=[personal]&sale_customer_id=[personal]&shop=web',
    );
    expect(redactUrl('/api/data/events/?customer_id=c-1&customer_token=ct-9&type=VISIT&EMAIL=j%40x.nl&e%6Dail=j')).toBe(
      '/api/data/events/?customer_id=[personal]&customer_token=[personal]&type=VISIT&EMAIL=[personal]&e%6Dail=[personal]',
    );
    expect(redactUrl('/api/data/customers/?first_name=Jane&zip_code=1234AB&city=Utrecht&birth_date=1990-01-01')).toBe(
      '/api/data/customers/?first_name=[personal]&zip_code=[personal]&city=[personal]&birth_date=[personal]',
    );
  });

  it('masks every company field (which ones are personal is a setting the logger cannot see)', () => {
    expect(redactUrl('/api/data/customers/?ACME__loyalty_card=LC-991&limit=5')).toBe('/api/data/customers/?ACME__loyalty_card=[personal]&limit=5');
  });

  it('masks external_id on customer routes only', () => {
    expect(redactUrl('/api/data/customers/?external_id=c-42')).toBe('/api/data/customers/?external_id=[personal]');
    expect(redactUrl('/api/data/products/?external_id=p-42')).toBe('/api/data/products/?external_id=p-42');
  });

  it('masks repeated filters, plus signs read as spaces, and e-mail addresses under any name', () => {
    expect(redactUrl('/api/data/customers/?email=a%40x.nl&email=b%40x.nl')).toBe('/api/data/customers/?email=[personal]&email=[personal]');
    expect(redactUrl('/api/audit/?actor=jane+doe%40example.com&limit=5')).toBe('/api/audit/?actor=[personal]&limit=5');
  });

  it('masks the customer identifier in a path, e-mail, phone or external id', () => {
    expect(redactUrl('/api/data/customers/jane.doe%40example.com/history/?as_of=2024-01-01&limit=5')).toBe('/api/data/customers/[personal]/history/?as_of=2024-01-01&limit=5');
    expect(redactUrl('/api/data/customers/+31612345678/history')).toBe('/api/data/customers/[personal]/history');
    expect(redactUrl('/api/data/customers/cust-42/history/')).toBe('/api/data/customers/[personal]/history/');
    expect(redactUrl('//api//data/customers//cust%2F42/history')).toBe('//api//data/customers//[personal]/history');
    expect(redactUrl('/API/Data/Customers/cust-42')).toBe('/API/Data/Customers/[personal]');
    expect(redactUrl('http://mds.local/api/data/customers/cust-42/history')).toBe('http://mds.local/api/data/customers/[personal]/history');
    expect(redactUrl('/api/datatargets/jane%40example.com/outlets/')).toBe('/api/datatargets/[personal]/outlets/');
  });

  it('leaves routes without a person readable', () => {
    for (const url of ['/api/data/customers/', '/api/customers/upload/?atomic=true', '/api/customer/upload', '/api/datatargets/dt-1/outlets/o-2/log/7', '/api/runs/42/']) {
      expect(redactUrl(url)).toBe(url);
    }
  });
});

describe('access tokens anywhere in a log line', () => {
  const entry = () => ({
    req: { headers: { 'x-forwarded-auth': `Bearer ${TOKEN}`, referer: `https://shop.example/?q=${encodeAll(TOKEN)}`, 'user-agent': 'curl/8' } },
    url: `/api/${TOKEN}/x`,
    note: { pasted: `he sent me mds_ ${OTHER} by mail` },
    err: new Error(`lookup failed for ${TOKEN}`),
    shop: 'web',
  });

  it('as JSON lines: headers, paths, any field, an error and the message', () => {
    const out = capture();
    createLogger('info', 'mds', out.stream).child({ carried: TOKEN }).warn(entry(), `odd request with ${OTHER}`);
    const text = out.text();
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(OTHER);
    expect(text).not.toContain(encodeAll(TOKEN));
    const logged = JSON.parse(text) as Record<string, any>;
    expect(logged).toMatchObject({ msg: 'odd request with [REDACTED]', carried: '[REDACTED]', url: '/api/[REDACTED]/x', shop: 'web' });
    expect(logged.req.headers).toEqual({ 'x-forwarded-auth': 'Bearer [REDACTED]', referer: 'https://shop.example/?q=[REDACTED]', 'user-agent': 'curl/8' });
    expect(logged.note.pasted).toBe('he sent me mds_ [REDACTED] by mail');
    expect(logged.err.message).toBe('lookup failed for [REDACTED]');
  });

  it('for people: the same', () => {
    const out = capture();
    createLogger('info', 'mds', prettyDestination(out.stream)).child({ carried: TOKEN }).warn(entry(), `odd request with ${OTHER}`);
    const text = out.text();
    expect(text).toContain('odd request with [REDACTED]');
    expect(text).toContain('"x-forwarded-auth":"Bearer [REDACTED]"');
    expect(text).toContain('lookup failed for [REDACTED]');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(OTHER);
    expect(text).not.toContain(encodeAll(TOKEN));
  });

  it('the request line as written: token spellings, personal filters and paths, in both forms', () => {
    const url = redactUrl(`/api/data/customers/jane%40example.com/history/?access%2Dtoken=${TOKEN}&email=jane%40example.com&phone_number=0612345678&limit=5`);
    const expected = '/api/data/customers/[personal]/history/?access%2Dtoken=[REDACTED]&email=[personal]&phone_number=[personal]&limit=5';
    const json = capture();
    const pretty = capture();
    for (const stream of [json.stream, prettyDestination(pretty.stream)]) createLogger('info', 'mds', stream).info({ reqId: 'r-1', method: 'GET', url, status: 200 }, 'request');
    expect(JSON.parse(json.text()).url).toBe(expected);
    expect(pretty.text()).toContain(`"url":"${expected}"`);
    for (const secret of [TOKEN, 'jane', '0612345678']) expect(json.text() + pretty.text()).not.toContain(secret);
  });

  it('leaves lines without a token as they were', () => {
    const line = '{"level":"info","url":"/api/data/products/?sort=name%20asc&q=mds_notatoken","msg":"request"}';
    expect(redactAccessTokens(line)).toBe(line);
  });
});
