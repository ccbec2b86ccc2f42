import { jsonProblem, MAX_BODY_DEPTH } from './json-body';

// What JSON.parse would take without a word but the service could not keep as sent.
describe('request body JSON, checked before parsing', () => {
  it('takes ordinary bodies, and brackets, quotes, escapes and numbers inside strings', () => {
    for (const ok of [
      '{"customers":[{"external_id":"A-1","first_name":"Åsa \\"the\\" ✓","tags":["a","b"],"price":1999,"rate":1.25e2}]}',
      '{"text":"[[[{{{ \\\\u0000 is a backslash and u0000","emoji":"\\ud83d\\ude00","n":-0,"big":"12345678901234567890"}',
      `${'['.repeat(MAX_BODY_DEPTH)}${']'.repeat(MAX_BODY_DEPTH)}`,
      '{"a":{"x":1},"b":{"x":2},"c":[{"x":3},{"x":4}]}',
      '{"max":9007199254740991,"min":-9007199254740991,"tiny":1e-300}',
    ]) {
      expect([ok, jsonProblem(ok)]).toEqual([ok, undefined]);
    }
  });

  it('names deep nesting, a repeated key, numbers it would change, NUL and lone surrogates', () => {
    expect(jsonProblem(`${'['.repeat(10_000)}${']'.repeat(10_000)}`)).toMatch(/deeper than 64 levels/);
    expect(jsonProblem(`${'{"a":'.repeat(100)}1${'}'.repeat(100)}`)).toMatch(/deeper than 64 levels/);
    expect(jsonProblem('{"customers":[{"external_id":"A","external_id":"B"}]}')).toBe('The request body has the key "external_id" twice in one object');
    expect(jsonProblem('{"price":1e400}')).toBe('The request body has the number 1e400, which is out of range');
    expect(jsonProblem('{"price":-1e309}')).toMatch(/out of range/);
    expect(jsonProblem('{"price":9007199254740993}')).toMatch(/beyond 2\^53/);
    expect(jsonProblem('{"name":"a\\u0000b"}')).toMatch(/NUL character/);
    expect(jsonProblem('{"name":"a\\ud800b"}')).toMatch(/lone surrogate \(\\ud800\)/);
    expect(jsonProblem('{"name":"\\udc00"}')).toMatch(/lone surrogate/);
    expect(jsonProblem('{"name":"\\ud83d\\u0041"}')).toMatch(/lone surrogate/);
  });
});
