import { createHmac, randomBytes } from 'node:crypto';
import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, createServer as createNetServer, Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { eventually } from '#mds/testing/eventually';
import { applyMasks, deliver, DeliveryOptions, destinationProblem, signPayload } from './index';
import { parseRetryAfter } from './webhook-client';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface TestServer {
  port: number;
  requests: Received[];
  connections: number;
  closedResponses: number;
}

type Respond = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

/** A receiver on 127.0.0.1, or on `::` (both families: IPv4 and IPv6 loopback reach it). */
async function startServer(respond: Respond, host = '127.0.0.1'): Promise<TestServer> {
  const state: TestServer = { port: 0, requests: [], connections: 0, closedResponses: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      state.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.on('close', () => state.closedResponses++);
      respond(req, res, body);
    });
  });
  server.on('connection', () => state.connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen({ port: 0, host, ipv6Only: false }, resolve));
  state.port = (server.address() as AddressInfo).port;
  return state;
}

function options(overrides: Partial<DeliveryOptions> = {}): DeliveryOptions {
  return { allowPrivate: true, connectTimeoutMs: 2000, totalTimeoutMs: 5000, webhookId: 'msg_test_1', ...overrides };
}

const answer =
  (status: number, headers: Record<string, string> = {}, body = ''): Respond =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

function hmac(key: Buffer, content: string): string {
  return `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
}

describe('deliver', () => {
  it('sends method, headers and body as given and reports a 2xx answer with both raw messages', async () => {
    const server = await startServer(answer(201, { 'X-Receiver': 'yes' }, '{"accepted":3}'));
    const body = '{"rows":[1,2,3]}';

    const result = await deliver(
      {
        url: `http://127.0.0.1:${server.port}/hooks/orders?batch=7`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Custom': 'given value' },
        body,
      },
      options(),
    );

    expect(server.requests).toHaveLength(1);
    const [received] = server.requests;
    expect(received.method).toBe('POST');
    expect(received.url).toBe('/hooks/orders?batch=7');
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.headers['x-custom']).toBe('given value');
    expect(received.headers['webhook-id']).toBe('msg_test_1');
    expect(received.headers['webhook-signature']).toBeUndefined();
    expect(received.body).toBe(body);

    expect(result).toMatchObject({ ok: true, httpStatus: 201 });
    expect(result.failReason).toBeUndefined();
    expect(result.refused).toBeUndefined();
    expect(result.rawRequest.startsWith(`POST /hooks/orders?batch=7 HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\n`)).toBe(true);
    expect(result.rawRequest).toContain('\r\ncontent-type: application/json\r\n');
    expect(result.rawRequest).toContain('\r\nX-Custom: given value\r\n');
    expect(result.rawRequest).toContain(`\r\ncontent-length: ${body.length}\r\n`);
    expect(result.rawRequest.endsWith(`\r\n\r\n${body}`)).toBe(true);
    expect(result.rawReply?.startsWith('HTTP/1.1 201 Created\r\n')).toBe(true);
    expect(result.rawReply).toContain('\r\nX-Receiver: yes\r\n');
    expect(result.rawReply?.endsWith('\r\n\r\n{"accepted":3}')).toBe(true);
  });

  it('gives the head apart when the rest of the raw request is the body as sent, and where masking changed the body', async () => {
    const server = await startServer(answer(200, {}, '{}'));
    const request = (body: string) => ({ url: `http://127.0.0.1:${server.port}/h`, method: 'POST', headers: { 'content-type': 'application/json', 'X-Api-Key': 'a key of twelve' }, body });
    const plain = await deliver(request('{"n":1}'), options());
    expect(plain.requestHead).toBeDefined();
    expect(plain.requestHead! + '{"n":1}').toBe(plain.rawRequest);
    expect(plain.requestHead).toContain('\r\nX-Api-Key: ***\r\n');
    expect(plain.bodyMasks).toBeUndefined();
    // A message that carries the key: the log keeps where it was masked, not the masked text.
    const body = '{"note":"a key of twelve","again":"a key of twelve!"}';
    const echoing = await deliver(request(body), options());
    expect(echoing.rawRequest.endsWith('{"note":"***","again":"***!"}')).toBe(true);
    expect(echoing.bodyMasks).toEqual([[9, 15], [35, 15]]);
    expect(echoing.requestHead! + applyMasks(body, echoing.bodyMasks!)).toBe(echoing.rawRequest);
  });

  it('takes startedAt from the clock just before the request and times until the reply body ends', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200);
      res.write('first part, ');
      setTimeout(() => res.end('last part'), 200);
    });
    const clock = new Date('2031-05-06T07:08:09.000Z');

    const result = await deliver({ url: `http://127.0.0.1:${server.port}/`, method: 'POST', headers: {} }, options({ now: () => clock }));

    expect(result.ok).toBe(true);
    expect(result.startedAt).toEqual(clock);
    expect(result.requestTimeMs).toBeGreaterThanOrEqual(180);
    expect(result.rawReply?.endsWith('first part, last part')).toBe(true);
    expect(server.requests[0].headers['webhook-timestamp']).toBe(String(clock.getTime() / 1000));
  });

  it('reports a non-2xx answer as a failure with its status and Retry-After in seconds', async () => {
    const server = await startServer(answer(500, { 'Retry-After': '120' }, 'database down'));

    const result = await deliver({ url: `http://127.0.0.1:${server.port}/x`, method: 'PUT', headers: {}, body: 'b' }, options());

    expect(server.requests.map((r) => r.method)).toEqual(['PUT']);
    expect(result).toMatchObject({ ok: false, httpStatus: 500, failReason: 'HTTP 500', retryAfterMs: 120_000 });
    expect(result.rawReply?.startsWith('HTTP/1.1 500 Internal Server Error\r\n')).toBe(true);
    expect(result.rawReply?.endsWith('database down')).toBe(true);
  });

  it('reads Retry-After given as an HTTP-date against the injected clock', async () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const server = await startServer(answer(503, { 'Retry-After': 'Tue, 01 Jan 2030 00:01:30 GMT' }));

    const result = await deliver({ url: `http://127.0.0.1:${server.port}/`, method: 'POST', headers: {} }, options({ now: () => now }));

    expect(result).toMatchObject({ ok: false, httpStatus: 503, failReason: 'HTTP 503', retryAfterMs: 90_000 });
  });

  it('leaves retryAfterMs out when there is no usable Retry-After', async () => {
    const server = await startServer(answer(429, { 'Retry-After': 'soon' }));

    const result = await deliver({ url: `http://127.0.0.1:${server.port}/`, method: 'POST', headers: {} }, options());

    expect(result).toMatchObject({ ok: false, httpStatus: 429, failReason: 'HTTP 429' });
    expect(result).not.toHaveProperty('retryAfterMs');
  });

  it('does not follow a redirect: the target receives nothing and the reason names the Location', async () => {
    const target = await startServer(answer(200));
    const redirecting = await startServer(answer(302, { Location: `http://127.0.0.1:${target.port}/elsewhere` }));

    const result = await deliver({ url: `http://127.0.0.1:${redirecting.port}/`, method: 'POST', headers: {}, body: '{}' }, options());

    expect(result).toMatchObject({
      ok: false,
      httpStatus: 302,
      failReason: `redirect not followed (302 to http://127.0.0.1:${target.port}/elsewhere)`,
    });
    expect(redirecting.requests).toHaveLength(1);
    expect(target.connections).toBe(0);
    expect(target.requests).toHaveLength(0);
  });

  it('fails with the total timeout when the receiver accepts but never answers', async () => {
    const server = await startServer(() => undefined);

    const result = await deliver({ url: `http://127.0.0.1:${server.port}/`, method: 'POST', headers: {}, body: 'x' }, options({ totalTimeoutMs: 300 }));

    expect(server.requests).toHaveLength(1);
    expect(result).toMatchObject({ ok: false, failReason: 'no reply within 300 ms' });
    expect(result.httpStatus).toBeUndefined();
    expect(result.rawReply).toBeUndefined();
    expect(result.requestTimeMs).toBeLessThan(5000);
    await eventually(() => server.closedResponses === 1);
  });

  it('fails with the total timeout when the reply body never ends, keeping the status', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });

    const result = await deliver({ url: `http://127.0.0.1:${server.port}/`, method: 'POST', headers: {} }, options({ totalTimeoutMs: 300 }));

    expect(result).toMatchObject({ ok: false, httpStatus: 200, failReason: 'reply not complete within 300 ms (HTTP 200 received)' });
    expect(result.rawReply?.endsWith('partial')).toBe(true);
  });

  it('fails with the connect timeout when the TLS handshake never completes', async () => {
    const sockets: Socket[] = [];
    const silent = createNetServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const result = await deliver({ url: `https://127.0.0.1:${port}/`, method: 'POST', headers: {} }, options({ connectTimeoutMs: 200 }));

      expect(sockets).toHaveLength(1);
      expect(result).toMatchObject({ ok: false, failReason: 'connect timeout after 200 ms' });
      expect(result.httpStatus).toBeUndefined();
    } finally {
      sockets.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('bounds a DNS lookup that never answers by the connect timeout', async () => {
    const result = await deliver(
      { url: 'http://slow.test/', method: 'POST', headers: {} },
      options({ connectTimeoutMs: 200, lookup: () => new Promise(() => undefined) }),
    );

    expect(result).toMatchObject({ ok: false, failReason: 'DNS lookup of slow.test timed out after 200 ms' });
  });

  it('reports a refused connection on a closed port', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));

    const result = await deliver({ url: `http://127.0.0.1:${port}/`, method: 'POST', headers: {} }, options());

    expect(result).toMatchObject({ ok: false, failReason: 'connection refused' });
    expect(result.httpStatus).toBeUndefined();
    expect(result.refused).toBeUndefined();
    expect(result.rawReply).toBeUndefined();
    expect(result.rawRequest.startsWith('POST / HTTP/1.1\r\n')).toBe(true);
  });

  it('cuts a 1 MiB reply at the default cap of 64 KiB', async () => {
    const server = await startServer(answer(200, { 'content-type': 'text/plain' }, 'a'.repeat(1024 * 1024)));

    const result = await deliver({ url: `http://127.0.0.1:${server.port}/`, method: 'POST', headers: {} }, options());

    expect(result).toMatchObject({ ok: true, httpStatus: 200 });
    const body = result.rawReply!.slice(result.rawReply!.indexOf('\r\n\r\n') + 4);
    expect(body).toBe(`${'a'.repeat(65_536)}\r\n[truncated after 65536 bytes]`);
  });

  it('keeps a reply that fits the cap whole, and cuts at a given cap', async () => {
    const server = await startServer(answer(200, {}, 'b'.repeat(1000)));

    const exact = await deliver({ url: `http://127.0.0.1:${server.port}/`, method: 'POST', headers: {} }, options({ replyCapBytes: 1000 }));
    const cut = await deliver({ url: `http://127.0.0.1:${server.port}/`, method: 'POST', headers: {} }, options({ replyCapBytes: 10 }));

    expect(exact.rawReply?.endsWith(`\r\n\r\n${'b'.repeat(1000)}`)).toBe(true);
    expect(cut.rawReply?.endsWith(`\r\n\r\n${'b'.repeat(10)}\r\n[truncated after 10 bytes]`)).toBe(true);
  });

  it('drops the connection at the cap instead of reading an endless reply', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 'z');
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });

    const result = await deliver({ url: `http://127.0.0.1:${server.port}/`, method: 'POST', headers: {} }, options({ replyCapBytes: 4096, totalTimeoutMs: 20_000 }));

    expect(result).toMatchObject({ ok: true, httpStatus: 200 });
    expect(result.rawReply).toContain('[truncated after 4096 bytes]');
    expect(result.requestTimeMs).toBeLessThan(10_000);
    await eventually(() => server.closedResponses === 1);
  });

  it.each([
    ['not a url', /^invalid URL "not a url"/],
    ['ftp://example.com/file', /^invalid URL "ftp:\/\/example\.com\/file": only http: and https:/],
    ['file:///etc/passwd', /^invalid URL "file:\/\/\/etc\/passwd": only http: and https:/],
  ])('refuses to deliver to %s without throwing', async (url, reason) => {
    const result = await deliver({ url, method: 'POST', headers: {}, body: '{}' }, options());

    expect(result.ok).toBe(false);
    expect(result.failReason).toMatch(reason);
    expect(result.httpStatus).toBeUndefined();
  });

  it('turns a header the HTTP client will not send into a result, sending nothing', async () => {
    const server = await startServer(answer(200));

    const result = await deliver({ url: `http://127.0.0.1:${server.port}/`, method: 'POST', headers: { 'transfer-encoding': 'chunked' }, body: 'x' }, options());

    expect(result.ok).toBe(false);
    expect(result.failReason).toMatch(/^invalid request: /);
    expect(server.requests).toHaveLength(0);
  });

  it('sends the URL host as TLS server name while connecting to the resolved address', async () => {
    const serverNames: string[] = [];
    const tlsServer = createTlsServer({
      SNICallback: (name, callback) => {
        serverNames.push(name);
        callback(new Error('no certificate in this test'), undefined);
      },
    });
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    const port = (tlsServer.address() as AddressInfo).port;
    try {
      const result = await deliver(
        { url: `https://hooks.receiver.test:${port}/in`, method: 'POST', headers: {} },
        options({ lookup: async () => [{ address: '127.0.0.1', family: 4 }] }),
      );

      expect(result.ok).toBe(false);
      expect(result.httpStatus).toBeUndefined();
      expect(serverNames).toEqual(['hooks.receiver.test']);
    } finally {
      await new Promise<void>((resolve) => tlsServer.close(() => resolve()));
    }
  });
});

describe('signing', () => {
  it('reproduces the Standard Webhooks specification test vector', () => {
    expect(signPayload('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  const key = randomBytes(32);
  it.each([
    ['a whsec_ secret, keyed by its base64-decoded bytes', `whsec_${key.toString('base64')}`, key],
    ['a plain secret, keyed by its UTF-8 bytes', 'plain shared secret ü', Buffer.from('plain shared secret ü', 'utf8')],
  ])('signs a delivery with %s', async (_label, secret, expectedKey) => {
    const server = await startServer(answer(204));
    const now = new Date('2029-02-03T04:05:06.789Z');
    const body = '{"customer":"ü"}';

    const result = await deliver(
      { url: `http://127.0.0.1:${server.port}/`, method: 'POST', headers: { 'Webhook-Id': 'forged', 'webhook-signature': 'v1,forged' }, body },
      options({ secret, webhookId: 'msg_batch_42', now: () => now }),
    );

    expect(result).toMatchObject({ ok: true, httpStatus: 204 });
    const { headers } = server.requests[0];
    expect(headers['webhook-id']).toBe('msg_batch_42');
    expect(headers['webhook-timestamp']).toBe('1864785906');
    expect(headers['webhook-signature']).toBe(hmac(expectedKey, `msg_batch_42.1864785906.${body}`));
  });
});

describe('masking of the raw messages', () => {
  it('masks credentials by header name and the secret wherever it shows', async () => {
    const secret = 'plain-outlet-secret-42';
    const server = await startServer((req, res) => {
      res.writeHead(401, { 'X-Echo': `${req.headers.authorization} ${secret}`, 'Set-Cookie': 'session=abc123' });
      res.end(`unknown secret ${secret}`);
    });

    const result = await deliver(
      {
        url: `http://127.0.0.1:${server.port}/in?s=${secret}`,
        method: 'POST',
        headers: { Authorization: 'Bearer tok_live_abc', 'X-Api-Key': 'k_123', 'X-Auth-Token': 't_456', 'X-Trace': 'visible' },
        body: `{"echo":"${secret}"}`,
      },
      options({ secret }),
    );

    expect(server.requests[0].headers.authorization).toBe('Bearer tok_live_abc');
    expect(server.requests[0].url).toBe(`/in?s=${secret}`);
    expect(result.httpStatus).toBe(401);
    for (const hidden of ['tok_live_abc', 'k_123', 't_456', secret, server.requests[0].headers['webhook-signature'] as string]) {
      expect(result.rawRequest).not.toContain(hidden);
    }
    expect(result.rawRequest).toContain('\r\nAuthorization: ***\r\n');
    expect(result.rawRequest).toContain('\r\nX-Api-Key: ***\r\n');
    expect(result.rawRequest).toContain('\r\nwebhook-signature: ***\r\n');
    expect(result.rawRequest).toContain('\r\nX-Trace: visible\r\n');
    expect(result.rawRequest.startsWith('POST /in?s=*** HTTP/1.1\r\n')).toBe(true);
    expect(result.rawReply).not.toContain(secret);
    expect(result.rawReply).not.toContain('tok_live_abc');
    expect(result.rawReply).not.toContain('abc123');
    expect(result.rawReply?.endsWith('unknown secret ***')).toBe(true);
  });

  it('sends credentials of the URL as Basic authorization, masked in the log', async () => {
    const server = await startServer(answer(200));

    const result = await deliver({ url: `http://hook-user:p%40ssword@127.0.0.1:${server.port}/in`, method: 'POST', headers: {} }, options());

    const expected = `Basic ${Buffer.from('hook-user:p@ssword').toString('base64')}`;
    expect(server.requests[0].headers.authorization).toBe(expected);
    expect(result.rawRequest).toContain('\r\nauthorization: ***\r\n');
    expect(result.rawRequest).not.toContain(expected.slice('Basic '.length));
    expect(result.rawRequest).not.toContain('ssword');
  });

  it('masks the key part of a whsec_ secret too', async () => {
    const keyPart = randomBytes(24).toString('base64');
    const server = await startServer(answer(200, {}, `key=${keyPart}`));

    const result = await deliver({ url: `http://127.0.0.1:${server.port}/`, method: 'POST', headers: {}, body: keyPart }, options({ secret: `whsec_${keyPart}` }));

    expect(server.requests[0].body).toBe(keyPart);
    expect(result.rawRequest).not.toContain(keyPart);
    expect(result.rawReply).not.toContain(keyPart);
    expect(result.rawReply?.endsWith('key=***')).toBe(true);
  });
});

describe('destination check', () => {
  const toLoopback: DeliveryOptions['lookup'] = async () => [{ address: '127.0.0.1', family: 4 }];
  const loopbackCases: Array<{ label: string; url: (port: number) => string; reason: RegExp; lookup?: DeliveryOptions['lookup'] }> = [
    { label: '127.0.0.1', url: (port) => `http://127.0.0.1:${port}/`, reason: /127\.0\.0\.1 is a loopback address/ },
    { label: 'localhost', url: (port) => `http://localhost:${port}/`, reason: /(127\.0\.0\.1|::1) is a loopback address/ },
    { label: '[::1]', url: (port) => `http://[::1]:${port}/`, reason: /::1 is a loopback address/ },
    {
      label: '[::ffff:127.0.0.1]',
      url: (port) => `http://[::ffff:127.0.0.1]:${port}/`,
      reason: /::ffff:7f00:1 is a loopback address \(IPv4-mapped 127\.0\.0\.1\)/,
    },
    { label: '0.0.0.0', url: (port) => `http://0.0.0.0:${port}/`, reason: /0\.0\.0\.0 is an unspecified address/ },
    { label: 'decimal 2130706433', url: (port) => `http://2130706433:${port}/`, reason: /127\.0\.0\.1 is a loopback address/ },
    { label: 'octal 0177.0.0.1', url: (port) => `http://0177.0.0.1:${port}/`, reason: /127\.0\.0\.1 is a loopback address/ },
    { label: 'hex 0x7f.1', url: (port) => `http://0x7f.1:${port}/`, reason: /127\.0\.0\.1 is a loopback address/ },
    { label: 'a name resolving to loopback', url: (port) => `http://evil.example:${port}/`, reason: /127\.0\.0\.1 is a loopback address/, lookup: toLoopback },
    {
      label: 'a name with a public and a loopback address',
      url: (port) => `http://mixed.example:${port}/`,
      reason: /127\.0\.0\.1 is a loopback address/,
      lookup: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
    },
  ];

  it.each(loopbackCases)('refuses $label before connecting, and delivers it once private addresses are allowed', async ({ url, reason, lookup }) => {
    const server = await startServer(answer(200, {}, 'reached'), '::');
    const request = { url: url(server.port), method: 'POST', headers: {}, body: '{}' };
    // The mixed name's public address is unreachable here; allowed, only its loopback one answers.
    const allowedLookup = lookup && toLoopback;

    const refused = await deliver(request, options({ allowPrivate: false, lookup }));
    const allowed = await deliver(request, options({ allowPrivate: true, lookup: allowedLookup }));

    expect(refused.ok).toBe(false);
    expect(refused.refused).toBe(true);
    expect(refused.failReason).toMatch(/^destination refused: /);
    expect(refused.failReason).toMatch(reason);
    expect(refused.httpStatus).toBeUndefined();
    expect(refused.rawReply).toBeUndefined();
    expect(allowed).toMatchObject({ ok: true, httpStatus: 200 });
    // Only the allowed delivery ever reached the receiver, on its own connection.
    expect(server.requests).toHaveLength(1);
    expect(server.connections).toBe(1);
  });

  it.each([
    ['http://10.0.0.1/', '10.0.0.1 is a private address'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address'],
    ['http://100.64.0.1/', '100.64.0.1 is a carrier-grade NAT address'],
    ['http://[fd00::1]/', 'fd00::1 is a unique-local address'],
    ['http://[fe80::1]/', 'fe80::1 is a link-local address'],
  ])('refuses %s', async (url, reason) => {
    const result = await deliver({ url, method: 'POST', headers: {} }, options({ allowPrivate: false }));

    expect(result).toMatchObject({ ok: false, refused: true, failReason: `destination refused: ${reason}` });
  });

  it('resolves a name once and connects to the address it resolved to', async () => {
    const server = await startServer(answer(200));
    const asked: string[] = [];
    // `receiver.test` does not exist in DNS: delivery works only if the connection goes to the looked-up address.
    const lookup = async (hostname: string): Promise<Array<{ address: string; family: 4 | 6 }>> => {
      asked.push(hostname);
      return [{ address: '127.0.0.1', family: 4 }];
    };

    const result = await deliver({ url: `http://receiver.test:${server.port}/in`, method: 'POST', headers: {} }, options({ lookup }));

    expect(result).toMatchObject({ ok: true, httpStatus: 200 });
    expect(asked).toEqual(['receiver.test']);
    expect(server.requests[0].headers.host).toBe(`receiver.test:${server.port}`);
  });

  it('reports a failed lookup as a result', async () => {
    const lookup = async (): Promise<Array<{ address: string; family: 4 | 6 }>> => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' });
    };

    const result = await deliver({ url: 'http://nowhere.test/', method: 'POST', headers: {} }, options({ allowPrivate: false, lookup }));

    expect(result).toMatchObject({ ok: false, failReason: 'DNS lookup of nowhere.test failed: ENOTFOUND' });
    expect(result.refused).toBeUndefined();
  });

  it.each([
    ['93.184.216.34', undefined],
    ['8.8.8.8', undefined],
    ['172.32.0.1', undefined],
    ['100.128.0.1', undefined],
    ['2606:4700::1', undefined],
    ['2001:4860:4860::8888', undefined],
    ['::ffff:93.184.216.34', undefined],
    ['64:ff9b::5db8:d822', undefined],
    ['127.0.0.1', '127.0.0.1 is a loopback address'],
    ['127.255.255.254', '127.255.255.254 is a loopback address'],
    ['10.20.30.40', '10.20.30.40 is a private address'],
    ['172.16.0.1', '172.16.0.1 is a private address'],
    ['172.31.255.255', '172.31.255.255 is a private address'],
    ['192.168.1.1', '192.168.1.1 is a private address'],
    ['169.254.169.254', '169.254.169.254 is a link-local address'],
    ['100.64.0.1', '100.64.0.1 is a carrier-grade NAT address'],
    ['100.127.255.255', '100.127.255.255 is a carrier-grade NAT address'],
    ['0.0.0.0', '0.0.0.0 is an unspecified address'],
    ['0.1.2.3', '0.1.2.3 is an unspecified address'],
    ['224.0.0.251', '224.0.0.251 is a multicast address'],
    ['239.255.255.250', '239.255.255.250 is a multicast address'],
    ['240.0.0.1', '240.0.0.1 is a reserved address'],
    ['255.255.255.255', '255.255.255.255 is a broadcast address'],
    ['192.0.2.1', '192.0.2.1 is a documentation address'],
    ['198.18.0.1', '198.18.0.1 is a reserved address'],
    ['::1', '::1 is a loopback address'],
    ['::', ':: is an unspecified address'],
    ['fe80::1', 'fe80::1 is a link-local address'],
    ['fe80::1%eth0', 'fe80::1%eth0 is a link-local address'],
    ['febf:ffff::1', 'febf:ffff::1 is a link-local address'],
    ['fc00::1', 'fc00::1 is a unique-local address'],
    ['fdff:ffff::1', 'fdff:ffff::1 is a unique-local address'],
    ['ff02::1', 'ff02::1 is a multicast address'],
    ['2001:db8::1', '2001:db8::1 is a documentation address'],
    ['::ffff:127.0.0.1', '::ffff:127.0.0.1 is a loopback address (IPv4-mapped 127.0.0.1)'],
    ['::ffff:7f00:1', '::ffff:7f00:1 is a loopback address (IPv4-mapped 127.0.0.1)'],
    ['::ffff:a00:1', '::ffff:a00:1 is a private address (IPv4-mapped 10.0.0.1)'],
    ['::ffff:169.254.169.254', '::ffff:169.254.169.254 is a link-local address (IPv4-mapped 169.254.169.254)'],
    ['64:ff9b::7f00:1', '64:ff9b::7f00:1 is a loopback address (NAT64 127.0.0.1)'],
    ['2002:c0a8:101::1', '2002:c0a8:101::1 is a private address (6to4 192.168.1.1)'],
    ['::127.0.0.1', '::127.0.0.1 is a reserved address'],
    ['4000::1', '4000::1 is a reserved address'],
    ['localhost', 'localhost is not an IP address'],
    ['0177.0.0.1', '0177.0.0.1 is not an IP address'],
  ])('destinationProblem(%s)', (address, problem) => {
    expect(destinationProblem(address)).toBe(problem);
  });
});

describe('parseRetryAfter', () => {
  const now = new Date('2030-01-01T00:00:00Z');
  it.each([
    ['0', 0],
    ['30', 30_000],
    [' 7 ', 7_000],
    ['Tue, 01 Jan 2030 00:00:10 GMT', 10_000],
    ['Mon, 31 Dec 2029 23:59:00 GMT', 0],
    ['-5', undefined],
    ['1.5', undefined],
    ['later', undefined],
    [undefined, undefined],
  ])('%s → %s', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
