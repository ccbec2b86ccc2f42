import { jsonProblem, MAX_BODY_DEPTH } from './json-body';

// What JSON.parse would take without a word but the service could not keep as sent.
describe('request body JSON, checked before parsing', () => {
  it('takes ordinary bodies, and brackets, quotes, escapes and numbers inside strings', () => {
    for (const ok of [
      '{"customers":[{"external_id":"A-1","first_name":"Åsa \\"the\\" ✓","tags":["a","b"],"price":1999,"rate":1.25e2}]}',
      '{"text":"[[[{{{ \\\\u0000 is a backslash and u0000","emoji":"\\ud83d\\ude00","n":0,"big":"12345678901234567890"}',
      `${'['.repeat(MAX_BODY_DEPTH)}${']'.repeat(MAX_BODY_DEPTH)}`,
      '{"a":{"x":1},"b":{"x":2},"c":[{"x":3},{"x":4}]}',
      '{"max":9007199254740991,"min":-9007199254740991,"tiny":1e-300}',
      '{"zero":0,"zeros":[0.0,0e5,0.000E-3],"near":[-0.5,-0.001,-0.0001e2,-0.01E-1]}',
      '{"a":-10,"b":-100.0,"c":-1e-3,"d":"-0","-0":1}',
      '{"proto":"__proto__","constructor":"x","prototype":1,"a":{"constructor":{"name":"c"}},"b":{"prototype":{"constructor":1}},"c":{"constructor":[{"prototype":1}]}}',
    ]) {
      expect([ok, jsonProblem(ok)]).toEqual([ok, undefined]);
    }
  });

  it('names deep nesting, a repeated key, numbers it would change (negative zero too), prototype keys, NUL and lone surrogates', () => {
    expect(jsonProblem(`${'['.repeat(10_000)}${']'.repeat(10_000)}`)).toMatch(/deeper than 64 levels/);
    expect(jsonProblem(`${'{"a":'.repeat(100)}1${'}'.repeat(100)}`)).toMatch(/deeper than 64 levels/);
    expect(jsonProblem('{"customers":[{"external_id":"A","external_id":"B"}]}')).toBe('The request body has the key "external_id" twice in one object');
    // A key repeats only within its object: not across siblings, nor between an object and the one inside it.
    expect(jsonProblem('{"a":{"a":1,"b":{"a":2}},"b":[{"a":1},{"a":2}],"c":{"a":{"a":{}}}}')).toBeUndefined();
    expect(jsonProblem('{"a":{"x":1},"b":{"y":{"z":1}},"a":2}')).toBe('The request body has the key "a" twice in one object');
    // Many keys (looked up in a Set past the first few), the repeat first, last, or after a nested object.
    const many = (n: number) => Array.from({ length: n }, (_, i) => `"k${i}":${i}`);
    expect(jsonProblem(`{${many(5000).join(',')}}`)).toBeUndefined();
    expect(jsonProblem(`{${[...many(5000), '"k4999":1'].join(',')}}`)).toBe('The request body has the key "k4999" twice in one object');
    expect(jsonProblem(`{${[...many(40), '"in":{"k0":1}', '"k0":2'].join(',')}}`)).toBe('The request body has the key "k0" twice in one object');
    expect(jsonProblem(`[{${many(40).join(',')}},{${many(40).join(',')}}]`)).toBeUndefined();
    // Keys as JSON.parse reads them: an escape does not make a repeat another key.
    expect(jsonProblem('{"ab":1,"a\\u0062":2}')).toBe('The request body has the key "ab" twice in one object');
    expect(jsonProblem('{"a\\u0062":1,"x":{"ab":1},"ab":2}')).toBe('The request body has the key "ab" twice in one object');
    expect(jsonProblem(`{${[...many(40), '"k\\u0030":1'].join(',')}}`)).toBe('The request body has the key "k0" twice in one object');
    expect(jsonProblem('{"a\\u0062":1,"a\\u0063":2,"abc":3}')).toBeUndefined();
    expect(jsonProblem('{"price":1e400}')).toBe('The request body has the number 1e400, which is out of range');
    expect(jsonProblem('{"price":-1e309}')).toMatch(/out of range/);
    expect(jsonProblem('{"price":9007199254740993}')).toMatch(/beyond 2\^53/);
    for (const zero of ['-0', '-0.0', '-0e5', '-0.000E-3', '-0E+2']) {
      expect(jsonProblem(`{"customers":[{"price":${zero}}]}`)).toBe(`The request body has the number ${zero}, a negative zero, which would be kept as 0: send 0`);
      expect(jsonProblem(`[1,${zero}]`)).toMatch(/negative zero/);
    }
    for (const proto of ['{"__proto__":{"is_admin":true}}', '{"customers":[{"external_id":"p","preferences":{"theme":"dark","__proto__":{"is_admin":true}}}]}', '{"\\u005f_proto__":1}']) {
      expect([proto, jsonProblem(proto)]).toEqual([proto, 'The request body has the key "__proto__", which would set the prototype of the object it is in: rename it']);
    }
    for (const prototype of ['{"constructor":{"prototype":{"is_admin":true}}}', '[{"a":1},{"constructor":{"name":"x","prototype":1}}]', '{"constructor":{"pro\\u0074otype":1}}']) {
      expect([prototype, jsonProblem(prototype)]).toEqual([prototype, expect.stringMatching(/"prototype" key in a "constructor" object/)]);
    }
    expect(jsonProblem('{"name":"a\\u0000b"}')).toMatch(/NUL character/);
    expect(jsonProblem('{"name":"a\\ud800b"}')).toMatch(/lone surrogate \(\\ud800\)/);
    expect(jsonProblem('{"name":"\\udc00"}')).toMatch(/lone surrogate/);
    expect(jsonProblem('{"name":"\\ud83d\\u0041"}')).toMatch(/lone surrogate/);
  });
});
