import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import { invalidRequest } from '#mds/platform';

/** Deepest nesting of arrays and objects a request body may have; no route needs more than a handful. */
export const MAX_BODY_DEPTH = 64;

/**
 * Whether JSON text opens more than `max` arrays and objects inside each other. Read on the text,
 * before parsing, because code that walks a parsed body recursively (class-transformer, coercion)
 * overflows the stack on deep nesting. Strings are skipped whole, so brackets in them do not count;
 * malformed text is left to the parser.
 */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && escaped(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return false;
      i = end;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** A quote preceded by an odd run of backslashes is part of its string. */
function escaped(text: string, quote: number): boolean {
  let slashes = 0;
  while (text.charCodeAt(quote - 1 - slashes) === 0x5c) slashes++;
  return slashes % 2 === 1;
}

/**
 * The API speaks JSON: application/json and the application/*+json family. Everything else,
 * text/plain and form posts included, is refused with 415 rather than half-parsed.
 * An empty body with a JSON content type counts as no body (clients send the header on bodiless POSTs).
 */
export function installJsonBody(fastify: FastifyInstance): void {
  fastify.removeContentTypeParser(['text/plain', 'application/json']);
  // Fastify's own JSON parser, with prototype-poisoning protection.
  const parseJson = fastify.getDefaultJsonParser('error', 'error') as FastifyBodyParser<string | Buffer>;
  const parse: FastifyBodyParser<string | Buffer> = (request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    if (nestedDeeperThan(text, MAX_BODY_DEPTH)) return done(invalidRequest(`The request body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels`), undefined);
    return parseJson(request, body, done as never);
  };
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, parse);
  fastify.addContentTypeParser(/^application\/[\w.+-]+\+json$/i, { parseAs: 'string' }, parse);
}
