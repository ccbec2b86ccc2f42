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
  // One entry per open array (-1) or object (where its keys begin in `starts`/`ends`, which hold where
  // the keys of every open object lie in the text, one after another): a key is compared with its
  // object's earlier keys where they lie, without a copy of any, and an object past SMALL_OBJECT keys,
  // or with an escaped key, gets a Set of its keys as JSON.parse reads them (`sets`, beside `open`),
  // so no object costs n². The usual small object costs no garbage at all: a thousand records' keys
  // used to be a thousand Sets, then thirteen thousand strings.
  const open: number[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const sets: Array<Set<string> | undefined> = [];
  // Beside it, whether each open object is the value of a "constructor" key (constructor.prototype),
  // and whether the last key read was one.
  const inConstructor: boolean[] = [];
  let lastWasConstructor = false;
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
          // JSON.parse reads escapes in keys too: "\u005f_proto__" is __proto__, "a\u0062" is "ab".
          const escaped = backslash !== -1 && backslash < end;
          const depth = open.length - 1;
          let set = sets[depth];
          if (!set && (escaped || starts.length - keys >= SMALL_OBJECT)) {
            set = sets[depth] = new Set();
            for (let k = keys; k < starts.length; k++) set.add(keyAt(text, starts[k], ends[k]));
          }
          const key = set ? keyAt(text, start, end) : undefined;
          if (set ? set.has(key!) : repeated(text, start, end, starts, ends, keys)) {
            return `The request body has the key ${JSON.stringify(key ?? text.slice(start, end)).slice(0, 60)} twice in one object`;
          }
          set?.add(key!);
          starts.push(start);
          ends.push(end);
          if (isKey(text, start, end, key, '__proto__')) return 'The request body has the key "__proto__", which would set the prototype of the object it is in: rename it';
          if (inConstructor[inConstructor.length - 1] && isKey(text, start, end, key, 'prototype')) {
            return 'The request body has a "prototype" key in a "constructor" object (constructor.prototype), which could reach a prototype: rename it';
          }
          lastWasConstructor = isKey(text, start, end, key, 'constructor');
        }
      }
      i = end;
    } else if (c === 0x7b) {
      inConstructor.push(open.length > 0 && open[open.length - 1] !== -1 && lastWasConstructor);
      open.push(starts.length);
      sets.push(undefined);
      if (open.length > maxDepth) return `The request body nests arrays and objects deeper than ${maxDepth} levels`;
    } else if (c === 0x5b) {
      inConstructor.push(false);
      open.push(-1);
      sets.push(undefined);
      if (open.length > maxDepth) return `The request body nests arrays and objects deeper than ${maxDepth} levels`;
    } else if (c === 0x5d || c === 0x7d) {
      const from = open.pop();
      if (from !== undefined && from !== -1) starts.length = ends.length = from;
      sets.pop();
      inConstructor.pop();
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
/** Whether the key text[start, end), written without escapes, is one of the keys at starts/ends from `from` on (compared where they lie). */
function repeated(text: string, start: number, end: number, starts: number[], ends: number[], from: number): boolean {
  const length = end - start;
  for (let k = from; k < starts.length; k++) {
    const other = starts[k];
    if (ends[k] - other !== length) continue;
    let same = true;
    for (let n = 0; n < length; n++) {
      if (text.charCodeAt(start + n) !== text.charCodeAt(other + n)) {
        same = false;
        break;
      }
    }
    if (same) return true;
  }
  return false;
}

/** The key text[start, end) as JSON.parse reads it. */
function keyAt(text: string, start: number, end: number): string {
  const raw = text.slice(start, end);
  return raw.includes('\\') ? keyText(text, start, end) : raw;
}

/** Whether the key at text[start, end) is `name`: `key` when it was read already (it may have escapes), else compared where it lies. */
function isKey(text: string, start: number, end: number, key: string | undefined, name: string): boolean {
  return key !== undefined ? key === name : end - start === name.length && text.startsWith(name, start);
}

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
