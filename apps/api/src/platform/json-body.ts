import { isUtf8 } from 'node:buffer';
import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import { invalidRequest } from '#mds/platform';

/** Deepest nesting of arrays and objects a request body may have; no route needs more than a handful. */
export const MAX_BODY_DEPTH = 64;
/** Keys an object may have before jsonProblem looks its keys up in a Set rather than comparing them one by one. */
const SMALL_OBJECT = 16;
/** Longest string a request body may hold (fields the service knows have limits of their own, far below). */
export const MAX_BODY_STRING = 1024 * 1024;

/**
 * What in JSON text would not survive parsing and storing as sent, found in one pass over the text
 * before it is parsed (code that walks a parsed body recursively overflows the stack on deep nesting,
 * and the parser itself keeps the last of two equal keys and turns 1e400 into Infinity without a
 * word): nesting deeper than `maxDepth`, a key twice in one object, a number that is not finite or an
 * integer beyond 2^53 (it would come back as another number), a negative zero (`-0`, `-0.0e3`:
 * JSON.stringify and jsonb write it as 0, so it would come back unsigned), the escapes PostgreSQL cannot
 * store (`\u0000`, a lone surrogate), strings over MAX_BODY_STRING, and `__proto__` and
 * constructor.prototype keys (JSON.parse makes them own keys, a trap for code that copies objects).
 * Returns the first such problem; malformed text is left to the parser.
 */
export function jsonProblem(text: string, maxDepth = MAX_BODY_DEPTH): string | undefined {
  // One entry per open array (-1) or object (where its keys begin in `names`, which holds the keys of
  // every open object one after another): a key is compared with its object's earlier keys, and an
  // object past SMALL_OBJECT keys gets a Set of them (`sets`, beside `open`), so no object costs n².
  // No Set for the usual small object: a thousand records' keys used to be a thousand Sets of garbage.
  const open: number[] = [];
  const names: string[] = [];
  const sets: Array<Set<string> | undefined> = [];
  // Beside it, the key each open object is the value of (constructor.prototype), and the last key read.
  const parentKeys: Array<string | undefined> = [];
  let lastKey: string | undefined;
  // The next backslash at or after where the search was: found once per backslash, not once per string.
  let backslash = -2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i + 1;
      let end = start;
      for (;;) {
        end = text.indexOf('"', end);
        if (end === -1) return undefined;
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
        end++;
      }
      if (end - start > MAX_BODY_STRING) return `The request body has a string of ${(end - start).toLocaleString('en')} characters; strings may have at most ${MAX_BODY_STRING.toLocaleString('en')}`;
      if (backslash !== -1 && backslash < start) backslash = text.indexOf('\\', start);
      if (backslash !== -1 && backslash < end) {
        const problem = escapeProblem(text, start, end);
        if (problem) return problem;
      }
      // Where the keys of the object this string is in begin (undefined at the top, -1 in an array).
      const keys = open[open.length - 1];
      if (keys !== undefined && keys !== -1) {
        let j = end + 1;
        while (j < text.length && isSpace(text.charCodeAt(j))) j++;
        if (text.charCodeAt(j) === 0x3a) {
          const key = text.slice(start, end);
          const depth = open.length - 1;
          const set = sets[depth];
          if (set ? set.has(key) : names.indexOf(key, keys) !== -1) return `The request body has the key ${JSON.stringify(key).slice(0, 60)} twice in one object`;
          if (set) set.add(key);
          else if (names.length - keys >= SMALL_OBJECT) sets[depth] = new Set([...names.slice(keys), key]);
          names.push(key);
          // JSON.parse reads escapes in keys too: "\u005f_proto__" is __proto__.
          lastKey = backslash !== -1 && backslash < end ? keyText(text, start, end) : key;
          if (lastKey === '__proto__') return 'The request body has the key "__proto__", which would set the prototype of the object it is in: rename it';
          if (lastKey === 'prototype' && parentKeys[parentKeys.length - 1] === 'constructor') {
            return 'The request body has a "prototype" key in a "constructor" object (constructor.prototype), which could reach a prototype: rename it';
          }
        }
      }
      i = end;
    } else if (c === 0x7b) {
      parentKeys.push(open.length > 0 && open[open.length - 1] !== -1 ? lastKey : undefined);
      open.push(names.length);
      sets.push(undefined);
      if (open.length > maxDepth) return `The request body nests arrays and objects deeper than ${maxDepth} levels`;
    } else if (c === 0x5b) {
      parentKeys.push(undefined);
      open.push(-1);
      sets.push(undefined);
      if (open.length > maxDepth) return `The request body nests arrays and objects deeper than ${maxDepth} levels`;
    } else if (c === 0x5d || c === 0x7d) {
      const from = open.pop();
      if (from !== undefined && from !== -1) names.length = from;
      sets.pop();
      parentKeys.pop();
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      let exponent = false;
      for (let d = text.charCodeAt(end); end < text.length && isNumberChar(d); d = text.charCodeAt(++end)) if (d === 0x65 || d === 0x45) exponent = true;
      if (c === 0x2d && text.charCodeAt(i + 1) === 0x30 && NEGATIVE_ZERO.test(text.slice(i, end))) {
        return `The request body has the number ${text.slice(i, Math.min(end, i + 40))}, a negative zero, which would be kept as 0: send 0`;
      }
      // Short plain numbers are the usual case: nothing to check (and no copy of their text).
      if (end - i > 15 || exponent) {
        const token = text.slice(i, end);
        const n = Number(token);
        if (!Number.isFinite(n)) return `The request body has the number ${token.slice(0, 40)}, which is out of range`;
        if (/^-?\d+$/.test(token) && !Number.isSafeInteger(n)) return `The request body has the integer ${token.slice(0, 40)}, beyond 2^53: it would not be kept exactly (send it as a string)`;
      }
      i = end - 1;
    }
  }
  return undefined;
}

/** A number literal whose digits are all zero, with a minus sign: `-0`, `-0.00`, `-0e5`, `-0.0E-3`. */
const NEGATIVE_ZERO = /^-0(?:\.0+)?(?:[eE][+-]?\d+)?$/;
/** The key text[start, end) with its escapes read as JSON.parse reads them (as written, if they are malformed: the parser says so). */
function keyText(text: string, start: number, end: number): string {
  try {
    return JSON.parse(text.slice(start - 1, end + 1)) as string;
  } catch {
    return text.slice(start, end);
  }
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isNumberChar = (c: number) => (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;

/** `\u0000` and unpaired `\uD800`–`\uDFFF` escapes in the string text[start, end), read within it only. */
function escapeProblem(text: string, start: number, end: number): string | undefined {
  for (let k = start; k < end; k++) {
    if (text.charCodeAt(k) !== 0x5c) continue;
    if (text.charCodeAt(k + 1) !== 0x75) {
      k++; // another escape (\", \\, \n …): its second character is not a backslash to look at
      continue;
    }
    const unit = parseInt(text.slice(k + 2, k + 6), 16);
    if (unit === 0) return 'The request body has a NUL character (\\u0000) in a string, which cannot be stored';
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(k + 6) === 0x5c && text.charCodeAt(k + 7) === 0x75 ? parseInt(text.slice(k + 8, k + 12), 16) : NaN;
      if (!(next >= 0xdc00 && next <= 0xdfff)) return `The request body has a lone surrogate (\\u${text.slice(k + 2, k + 6)}) in a string, which is not text`;
      k += 11;
    } else {
      if (unit >= 0xdc00 && unit <= 0xdfff) return `The request body has a lone surrogate (\\u${text.slice(k + 2, k + 6)}) in a string, which is not text`;
      k += 5;
    }
  }
  return undefined;
}

/**
 * The API speaks JSON: application/json and the application/*+json family, in UTF-8. Everything else,
 * text/plain and form posts included, is refused with 415 rather than half-parsed; bytes that are
 * not UTF-8 and the problems of jsonProblem with 400. An empty body with a JSON content type counts
 * as no body (clients send the header on bodiless POSTs; routes that need one say so).
 */
export function installJsonBody(fastify: FastifyInstance): void {
  fastify.removeContentTypeParser(['text/plain', 'application/json']);
  const parse: FastifyBodyParser<Buffer> = (_request, body, done) => {
    if (!isUtf8(body)) return done(invalidRequest('The request body is not valid UTF-8'), undefined);
    const text = body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    const problem = jsonProblem(text);
    if (problem) return done(invalidRequest(problem), undefined);
    // JSON.parse itself: jsonProblem has refused the __proto__ and constructor.prototype keys, which
    // is all Fastify's parser (secure-json-parse) adds, with a second scan of the text. A leading BOM
    // is dropped as that parser drops it; malformed text is named by the parser's own message.
    let value: unknown;
    try {
      value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    } catch (err) {
      return done(invalidRequest(`Malformed JSON in request body: ${(err as Error).message}`), undefined);
    }
    return done(null, value);
  };
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, parse);
  fastify.addContentTypeParser(/^application\/[\w.+-]+\+json$/i, { parseAs: 'buffer' }, parse);
}
