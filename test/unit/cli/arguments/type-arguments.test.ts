import { describe, expect, it } from 'vitest';
import { exactNumber, parseExactJson } from '../../../../src/cli/arguments/exact-json.js';
import {
  buildToolArguments,
  parseArgumentWords,
  readArgumentSources,
  typeArguments,
} from '../../../../src/cli/arguments/type-arguments.js';
import { typeValue } from '../../../../src/cli/arguments/type-value.js';
import { ErrorCode, McpxError } from '../../../../src/errors/index.js';

const TWENTY = '12345678901234567890';

/** A schema as servers in the wild write them: refs, unions, nullable, enums. */
const schema = {
  type: 'object',
  $defs: { Mode: { type: 'string', enum: ['fast', 'slow'] } },
  properties: {
    id: { type: 'string' },
    count: { type: 'integer' },
    ratio: { type: 'number' },
    flag: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    options: { type: 'object', properties: { depth: { type: 'integer' } } },
    mode: { $ref: '#/$defs/Mode' },
    either: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
    maybe: { type: ['string', 'null'] },
    legacy: { type: 'integer', nullable: true },
    level: { enum: [1, 2, 3] },
    free: {},
  },
  required: ['id'],
};

function typed(pairs: Record<string, string>, base: Record<string, unknown> = {}) {
  return typeArguments({ base, pairs: Object.entries(pairs).map(([key, text]) => ({ key, text })) }, schema);
}

describe('typeArguments', () => {
  it('keeps strings as written where the schema says string', () => {
    expect(typed({ id: '007' })).toEqual({ ok: true, args: { id: '007' } });
    expect(typed({ id: TWENTY })).toEqual({ ok: true, args: { id: TWENTY } });
    expect(typed({ id: 'true' })).toEqual({ ok: true, args: { id: 'true' } });
    expect(typed({ id: '"quoted"' })).toEqual({ ok: true, args: { id: '"quoted"' } });
  });

  it('parses numbers, integers and booleans by the schema', () => {
    expect(typed({ id: 'x', count: '42', ratio: '0.25', flag: 'false' })).toEqual({
      ok: true,
      args: { id: 'x', count: 42, ratio: 0.25, flag: false },
    });
  });

  it.each([
    ['count', 'abc', /'abc' is not an integer/],
    ['count', '1.5', /'1.5' is not an integer/],
    [
      'count',
      TWENTY,
      /more digits than a JSON number carries exactly \(it would arrive as 12345678901234567000\)/,
    ],
    ['ratio', '1e400', /more digits/],
    ['ratio', 'ten', /'ten' is not a number/],
    ['flag', 'yes', /'yes' is not true or false/],
    ['tags', 'a,b', /not a JSON array/],
    ['tags', '[1,', /not valid JSON/],
    ['mode', 'fats', /'fats' is not one of fast, slow/],
    ['level', '4', /not one of 1, 2, 3/],
  ])('refuses %s=%s', (key, text, message) => {
    const result = typed({ id: 'x', [key]: text });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems[0]?.message).toMatch(message);
  });

  it('suggests the enum value meant', () => {
    const result = typed({ id: 'x', mode: 'fats' });
    expect(result.ok === false && result.problems[0]?.suggestion).toBe('fast');
  });

  it('reads arrays and objects as JSON, through $ref, unions and nullable', () => {
    expect(
      typed({
        id: 'x',
        tags: '["a","b"]',
        options: '{"depth": 2}',
        mode: 'slow',
        either: '5',
        maybe: 'null',
        legacy: 'null',
        level: '2',
      }),
    ).toEqual({
      ok: true,
      args: {
        id: 'x',
        tags: ['a', 'b'],
        options: { depth: 2 },
        mode: 'slow',
        either: 5,
        maybe: null,
        legacy: null,
        level: 2,
      },
    });
  });

  it('falls back to the string in an integer|string union when the number is not exact', () => {
    expect(typed({ id: 'x', either: TWENTY })).toEqual({ ok: true, args: { id: 'x', either: TWENTY } });
    expect(typed({ id: 'x', either: '"5"' })).toEqual({ ok: true, args: { id: 'x', either: '5' } });
    expect(typed({ id: 'x', either: 'abc' })).toEqual({ ok: true, args: { id: 'x', either: 'abc' } });
  });

  it('applies the rule without a schema to a property with no type', () => {
    expect(typed({ id: 'x', free: '3' })).toEqual({ ok: true, args: { id: 'x', free: 3 } });
    expect(typed({ id: 'x', free: 'hi' })).toEqual({ ok: true, args: { id: 'x', free: 'hi' } });
  });

  it('catches unknown keys with a did-you-mean, and missing required keys', () => {
    const result = typed({ cuont: '3' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.message)).toEqual([
      "'cuont' is not a parameter — did you mean 'count'?",
      "missing required argument 'id'",
    ]);
    expect(result.problems[0]?.suggestion).toBe('count');
  });

  it('accepts unknown keys when the schema allows additionalProperties', () => {
    const open = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true };
    expect(typeArguments({ base: {}, pairs: [{ key: 'zzz', text: '1' }] }, open)).toEqual({
      ok: true,
      args: { zzz: 1 },
    });
  });

  it('lets key=value pairs replace a JSON object’s keys', () => {
    expect(typed({ count: '2' }, { id: '007', count: 1 })).toEqual({
      ok: true,
      args: { id: '007', count: 2 },
    });
  });

  it('keeps today’s rule without a schema, refusing inexact numbers', () => {
    const pairs = [
      { key: 'n', text: '3' },
      { key: 's', text: 'hi there' },
      { key: 'q', text: '"007"' },
      { key: 'o', text: '{"a":[1]}' },
    ];
    expect(typeArguments({ base: {}, pairs }, undefined)).toEqual({
      ok: true,
      args: { n: 3, s: 'hi there', q: '007', o: { a: [1] } },
    });
    const big = typeArguments({ base: {}, pairs: [{ key: 'n', text: TWENTY }] }, undefined);
    expect(big.ok === false && big.problems[0]?.message).toMatch(/cannot be sent exactly.*quote it/);
  });

  it('reads file contents exactly for strings and trimmed for other types', () => {
    const s = { type: 'object', properties: { body: { type: 'string' }, n: { type: 'integer' } } };
    const result = typeArguments(
      {
        base: {},
        pairs: [
          { key: 'body', text: 'line\n', from: 'a.txt' },
          { key: 'n', text: '12\n', from: 'n.txt' },
        ],
      },
      s,
    );
    expect(result).toEqual({ ok: true, args: { body: 'line\n', n: 12 } });
  });
});

describe('parseArgumentWords and readArgumentSources', () => {
  it('splits pairs, files, the @@ escape, JSON and stdin', () => {
    expect(parseArgumentWords(['a=b=c', 'f=@x.txt', 'at=@@home', 'lone=@', '{"k":1}', '-'])).toEqual([
      { kind: 'pair', key: 'a', text: 'b=c' },
      { kind: 'file', key: 'f', path: 'x.txt' },
      { kind: 'pair', key: 'at', text: '@home' },
      { kind: 'pair', key: 'lone', text: '@' },
      { kind: 'json', text: '{"k":1}' },
      { kind: 'stdin' },
    ]);
  });

  it.each([
    [['novalue'], /'novalue' is not a key=value pair/],
    [['=x'], /not a key=value pair/],
    [['a=1', 'a=2'], /given twice/],
    [['-', '-'], /given twice/],
    [['[1,2]'], /not a key=value pair/],
  ])('refuses %j', (words, message) => {
    expect(() => parseArgumentWords(words)).toThrow(message);
  });

  it('reads files and stdin through the sources, and merges JSON objects', async () => {
    const resolved = await readArgumentSources(parseArgumentWords(['{"a":1,"b":2}', '-', 'f=@x']), {
      readFile: async (path) => `contents of ${path}`,
      readStdin: async () => '{"b":3,"c":4}',
    });
    expect(resolved).toEqual({
      base: { a: 1, b: 3, c: 4 },
      pairs: [{ key: 'f', text: 'contents of x', from: 'x' }],
    });
  });

  it('explains an unreadable file and how to send a literal @', async () => {
    const error = await readArgumentSources(parseArgumentWords(['user=@alice']), {
      readFile: async () => {
        throw new Error('ENOENT: no such file');
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpxError);
    expect((error as McpxError).code).toBe(ErrorCode.InvalidArguments);
    expect((error as McpxError).message).toMatch(/cannot read 'alice' for user=@alice: ENOENT/);
    expect((error as McpxError).fixes[0]).toBe("to send the text '@alice' itself, write user=@@alice");
  });

  it.each([
    ['{"a": 1', /not valid JSON: .*position/],
    ['[1]', /must be a JSON object/],
    [`{"n": ${TWENTY}}`, /the number 12345678901234567890 cannot be sent exactly/],
  ])('refuses stdin %s', async (stdin, message) => {
    await expect(
      readArgumentSources(parseArgumentWords(['-']), { readStdin: async () => stdin }),
    ).rejects.toThrow(message);
  });

  it('builds an INVALID_ARGUMENTS error naming the tool and its help command', async () => {
    const error = await buildToolArguments(['count=x'], schema, { server: 'srv', tool: 't' }).catch((e) => e);
    expect((error as McpxError).code).toBe(ErrorCode.InvalidArguments);
    expect((error as McpxError).message).toBe(
      "2 problems with the arguments for t: count: 'x' is not an integer; missing required argument 'id'",
    );
    expect((error as McpxError).fixes).toEqual(['run `mcpx tools srv.t` to see its parameters']);
  });
});

describe('exact numbers', () => {
  it.each([
    ['0.1', true],
    ['1.50', true],
    ['1e3', true],
    ['-0', true],
    ['9007199254740993', false],
    [TWENTY, false],
    // 2^60 is a double, but JSON.stringify writes it as 1152921504606847000: not what was typed.
    ['1152921504606846976', false],
    ['007', false],
    ['1.', false],
  ])('%s exact: %s', (text, ok) => {
    expect(exactNumber(text).ok).toBe(ok);
  });

  it('finds inexact numbers nested in JSON but not inside strings', () => {
    expect(parseExactJson(`{"a":"${TWENTY}","b":[1,2.5]}`).ok).toBe(true);
    expect(parseExactJson(`{"a":[${TWENTY}]}`)).toMatchObject({ ok: false, inexact: TWENTY });
  });

  it('typeValue treats a missing schema node as anything', () => {
    expect(typeValue('[1]', undefined, undefined)).toEqual({ ok: true, value: [1] });
    expect(typeValue('x', { $ref: '#/nowhere' }, {})).toEqual({ ok: true, value: 'x' });
  });
});

describe('messages', () => {
  it('quote a long value shortened, on one line', () => {
    const result = typeValue(`${'x'.repeat(100)}\nmore`, { type: 'integer' }, {});
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toBe(`'${'x'.repeat(59)}…' is not an integer`);
  });

  it('list at most twelve enum values', () => {
    const values = Array.from({ length: 30 }, (_, i) => `v${i}`);
    const result = typeValue('nope', { enum: values }, {});
    expect(!result.ok && result.problem).toBe(
      `'nope' is not one of ${values.slice(0, 12).join(', ')}, … (30 values)`,
    );
  });
});

describe('allOf, as pydantic writes it', () => {
  const pydantic = {
    type: 'object',
    $defs: {
      Mode: { type: 'string', enum: ['fast', 'slow'] },
      Base: { properties: { id: { type: 'string' } }, required: ['id'] },
    },
    allOf: [{ $ref: '#/$defs/Base' }],
    properties: { mode: { allOf: [{ $ref: '#/$defs/Mode' }], default: 'fast' }, n: { type: 'integer' } },
  };

  it('folds allOf members into one schema: properties and required merged', () => {
    expect(
      typeArguments(
        {
          base: {},
          pairs: [
            { key: 'id', text: '007' },
            { key: 'mode', text: 'slow' },
          ],
        },
        pydantic,
      ),
    ).toEqual({
      ok: true,
      args: { id: '007', mode: 'slow' },
    });
    const missing = typeArguments({ base: {}, pairs: [{ key: 'mode', text: 'fats' }] }, pydantic);
    expect(!missing.ok && missing.problems.map((p) => p.message)).toEqual([
      "mode: 'fats' is not one of fast, slow — did you mean 'fast'?",
      "missing required argument 'id'",
    ]);
  });
});

describe('tools without parameters', () => {
  it('refuse any key when the schema declares no properties, and accept any when it says nothing', () => {
    const none = typeArguments(
      { base: {}, pairs: [{ key: 'x', text: '1' }] },
      { type: 'object', properties: {} },
    );
    expect(!none.ok && none.problems[0]?.message).toBe("'x' is not a parameter (it takes none)");
    expect(typeArguments({ base: {}, pairs: [{ key: 'x', text: '1' }] }, { type: 'object' })).toEqual({
      ok: true,
      args: { x: 1 },
    });
  });
});
