import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The commit-msg hook's rule (.githooks/commit-msg, enabled by `npm install`), as git runs it. */
function check(message: string): { code: number; stderr: string } {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mds-msg-')), 'COMMIT_EDITMSG');
  fs.writeFileSync(file, message);
  try {
    execFileSync(path.join(__dirname, '..', '.githooks', 'commit-msg'), [file], { stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, stderr: '' };
  } catch (err) {
    const e = err as { status: number; stderr: Buffer };
    return { code: e.status, stderr: e.stderr.toString() };
  }
}

describe('commit messages', () => {
  it('takes a subject of at most 72 characters, a blank line, then a body', () => {
    expect(check(`${'a'.repeat(72)}\n\nWhy, the figures and the test.\n`).code).toBe(0);
    expect(check('Fix the sales projection\n').code).toBe(0);
    expect(check('Fix it\n# Please enter the commit message\n# Lines starting with # are ignored\n').code).toBe(0);
  });

  it('refuses a longer subject, a body without the blank line, and an empty message', () => {
    expect(check(`${'é'.repeat(73)}\n`)).toEqual({ code: 1, stderr: expect.stringMatching(/^commit refused: the subject has 73 characters; at most 72/) });
    expect(check('Subject\nbody straight after\n')).toEqual({ code: 1, stderr: 'commit refused: the subject must be followed by a blank line before the body\n' });
    expect(check('# only comments\n\n')).toEqual({ code: 1, stderr: 'commit refused: the message is empty\n' });
  });
});
