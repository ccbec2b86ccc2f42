import * as fs from 'node:fs';
import * as path from 'node:path';

/** README.md and every page under docs/: each relative link resolves to a file, and each #anchor to a heading. */
const ROOT = path.resolve(__dirname, '../..');

function pages(): string[] {
  const out = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out;
}

/** The text as GitHub renders links from it: fenced code blocks and code spans are not markdown. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The anchors GitHub makes for a page's headings (github-slugger: lower case, punctuation dropped, spaces to dashes, repeats numbered). */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const noCode = text.replace(/^(```|~~~)[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of noCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const rendered = m[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/`([^`]*)`/g, '$1')
      .replace(/<[^>]+>/g, '');
    const base = rendered.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function links(text: string): string[] {
  return [...prose(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
}

describe('documentation links', () => {
  it('makes GitHub\'s anchors from headings', () => {
    expect([...anchors("# CLI (`mds`)\n## One customer's history\n## Outlets (webhooks)\n## A\n## A\n```sh\n# not a heading\n```")]).toEqual([
      'cli-mds',
      'one-customers-history',
      'outlets-webhooks',
      'a',
      'a-1',
    ]);
  });

  it.each(pages())('%s: every relative link resolves, inside the repository', (page) => {
    const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
    const problems: string[] = [];
    for (const link of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto: … are not files of the repository
      const [target, anchor] = link.split('#', 2);
      const file = target === '' ? path.join(ROOT, page) : path.resolve(path.dirname(path.join(ROOT, page)), decodeURIComponent(target));
      if (path.relative(ROOT, file).startsWith('..') || path.isAbsolute(target)) {
        problems.push(`${link}: outside the repository (a clone does not have it)`);
        continue;
      }
      if (!fs.existsSync(file)) {
        problems.push(`${link}: no such file`);
        continue;
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchors(fs.readFileSync(file, 'utf8')).has(anchor)) {
        problems.push(`${link}: no heading makes #${anchor}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
