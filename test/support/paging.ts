/**
 * Follows `next_url` from `path` and returns each page's `key` list. Every page must carry
 * `next_url`, and the last one must say it is the last with null: a missing key throws.
 */
export async function followPages<T>(get: (path: string) => Promise<{ status: number; body: any }>, path: string, key: string): Promise<T[][]> {
  const pages: T[][] = [];
  let next: unknown = path;
  while (next !== null) {
    if (typeof next !== 'string') throw new Error(`next_url after ${pages.length} pages is ${JSON.stringify(next)}, not a path or null`);
    const res = await get(next);
    if (res.status !== 200) throw new Error(`GET ${next} answered ${res.status}: ${JSON.stringify(res.body)}`);
    pages.push(res.body[key]);
    next = 'next_url' in res.body ? res.body.next_url : undefined;
  }
  return pages;
}
