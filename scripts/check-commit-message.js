#!/usr/bin/env node
// Refuses a commit message whose subject is longer than 72 characters, or not followed by a blank
// line when a body follows (git's own "comment" lines and a trailing diff from --verbose ignored).
const fs = require('node:fs');

function problems(message) {
  const lines = message.split('\n').filter((l) => !l.startsWith('#'));
  const cut = lines.findIndex((l) => l.startsWith('diff --git'));
  const text = (cut === -1 ? lines : lines.slice(0, cut)).join('\n').trim();
  if (text === '') return ['the message is empty'];
  const [subject, second, ...rest] = text.split('\n');
  const found = [];
  if ([...subject].length > 72) found.push(`the subject has ${[...subject].length} characters; at most 72 (the why, the figures and the test go in the body)`);
  if (second !== undefined && second.trim() !== '' && rest.length >= 0) found.push('the subject must be followed by a blank line before the body');
  return found;
}

if (require.main === module) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: check-commit-message <file>\n');
    process.exit(2);
  }
  const found = problems(fs.readFileSync(file, 'utf8'));
  if (found.length > 0) {
    process.stderr.write(`commit refused: ${found.join('; ')}\n`);
    process.exit(1);
  }
}

module.exports = { problems };
