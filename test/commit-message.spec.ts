// The commit-msg hook's rule (.githooks/commit-msg, enabled by `npm install`).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { problems } = require('../scripts/check-commit-message.js') as { problems: (message: string) => string[] };

describe('commit messages', () => {
  it('takes a subject of at most 72 characters, a blank line, then a body', () => {
    expect(problems(`${'a'.repeat(72)}\n\nWhy, the figures and the test.\n`)).toEqual([]);
    expect(problems('Fix the sales projection\n')).toEqual([]);
    expect(problems('Fix it\n# Please enter the commit message\n# Lines starting with # are ignored\n')).toEqual([]);
  });

  it('refuses a longer subject, a body without the blank line, and an empty message', () => {
    expect(problems(`${'é'.repeat(73)}\n`)).toEqual([expect.stringMatching(/^the subject has 73 characters; at most 72/)]);
    expect(problems('Subject\nbody straight after\n')).toEqual(['the subject must be followed by a blank line before the body']);
    expect(problems('# only comments\n\n')).toEqual(['the message is empty']);
  });
});
