import { Writable } from 'node:stream';
import { createLogger, prettyDestination, redactUrl } from './logging';

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
