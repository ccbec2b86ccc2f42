import { prettyLine } from './logging';

describe('log lines for people', () => {
  it('shows time, level and message first, then the other fields, redacted as in JSON', () => {
    const line = JSON.stringify({ level: 'warn', time: '2026-11-25T10:42:07.123Z', pid: 1, hostname: 'h', name: 'mds', msg: 'slow request', url: '/api/x?token=[REDACTED]', ms: 812, parts: ['api'] });
    expect(prettyLine(line)).toBe('10:42:07 WARN  slow request  url=/api/x?token=[REDACTED] ms=812 parts=["api"]');
    expect(prettyLine('not json')).toBe('not json');
  });
});
