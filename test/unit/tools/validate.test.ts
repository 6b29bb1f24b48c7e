import { describe, expect, it } from 'vitest';
import { checkAgainstSchema, formatProblems } from '../../../src/tools/validate.js';

const schema = {
  type: 'object',
  properties: {
    message: { type: 'string' },
    count: { type: 'integer', minimum: 1 },
    mode: { enum: ['a', 'b'] },
  },
  required: ['message'],
  additionalProperties: false,
};

describe('checkAgainstSchema', () => {
  it('accepts valid arguments', () => {
    expect(checkAgainstSchema(schema, { message: 'hi', count: 2 })).toEqual({ ok: true });
  });

  it('lists every problem with its path', () => {
    const check = checkAgainstSchema(schema, { count: 0.5, mode: 'c', extra: 1 });
    expect(check.ok).toBe(false);
    const lines = check.ok === false ? formatProblems(check.problems) : [];
    expect(lines).toEqual(
      expect.arrayContaining([
        "missing required property 'message'",
        '/count: must be integer',
        "unknown property 'extra'",
        '/mode: must be one of "a", "b"',
      ]),
    );
  });

  it('speaks JSON Schema 2020-12 by default ($defs, prefixItems)', () => {
    const s = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: {
        point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false },
      },
      type: 'object',
      properties: { at: { $ref: '#/$defs/point' } },
    };
    expect(checkAgainstSchema(s, { at: [1, 2] })).toEqual({ ok: true });
    expect(checkAgainstSchema(s, { at: [1, 2, 3] }).ok).toBe(false);
  });

  it('checks draft-07 schemas as draft-07 (definitions, items as an array)', () => {
    const s = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      definitions: { n: { type: 'number' } },
      type: 'object',
      properties: { pair: { type: 'array', items: [{ $ref: '#/definitions/n' }, { type: 'string' }] } },
    };
    expect(checkAgainstSchema(s, { pair: [1, 'x'] })).toEqual({ ok: true });
    expect(checkAgainstSchema(s, { pair: ['x', 'x'] }).ok).toBe(false);
  });

  it('reports a schema it cannot compile instead of throwing', () => {
    const check = checkAgainstSchema({ type: 'object', properties: { a: { $ref: '#/nowhere' } } }, { a: 1 });
    expect(check.ok).toBe('unchecked');
  });
});
