import { describe, expect, it } from 'vitest';
import { assignIdentifiers, identifierFor, schemaType } from '../../../src/codegen/index.js';
import { commentText, docComment, stringLiteral } from '../../../src/codegen/source-text.js';

describe('identifiers', () => {
  it('maps any tool name to an identifier by the documented rule', () => {
    expect(identifierFor('get-item')).toBe('getItem');
    expect(identifierFor('files.read')).toBe('filesRead');
    expect(identifierFor('delete')).toBe('delete_');
    expect(identifierFor('2fa')).toBe('_2fa');
    expect(identifierFor('!!!')).toBe('tool');
    expect(identifierFor('__proto__')).toBe('proto');
    expect(identifierFor('x"); process.exit(7); ("')).toBe('xProcessExit7');
  });

  it('numbers collisions in the order of the real names, whatever order they are listed in', () => {
    const expected = new Map([
      ['get-item', 'getItem'],
      ['getItem', 'getItem2'],
      ['get_item', 'getItem3'],
    ]);
    expect(assignIdentifiers(['get_item', 'getItem', 'get-item'])).toEqual(expected);
    expect(assignIdentifiers(['get-item', 'get_item', 'getItem'])).toEqual(expected);
  });
});

describe('untrusted text in source', () => {
  it('keeps a name inside one ASCII string literal', () => {
    const name = 'a"\u2028\u202e\\`';
    const literal = stringLiteral(name);
    expect(literal).toMatch(/^"[\x20-\x7e]*"$/);
    expect(JSON.parse(literal)).toBe(name);
  });

  it('keeps a description inside its doc comment', () => {
    const comment = docComment(['*/ process.exit(1); /*\n\u001b[31mred\u202e']);
    expect(comment.indexOf('*/')).toBe(comment.trimEnd().length - 2);
    expect(commentText('\u202e')).toBe('<U+202E>');
  });
});

describe('schemaType', () => {
  it('types refs, unions, enums, nullable, optional properties and nested arrays', () => {
    const schema = {
      type: 'object',
      $defs: { Item: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
      properties: {
        lines: { type: 'array', items: { type: 'array', items: { $ref: '#/$defs/Item' } } },
        via: { oneOf: [{ const: 'a' }, { type: 'integer' }] },
        level: { enum: ['low', 'high'] },
        note: { type: ['string', 'null'] },
        gift: { type: 'boolean', nullable: true },
        'max-bytes': { type: 'integer' },
      },
      required: ['lines'],
    };
    const type = schemaType(schema).replace(/\s+/g, ' ');
    expect(type).toBe(
      '{ lines: Array<Array<{ sku: string; }>>; via?: "a" | number; level?: "low" | "high"; note?: string | null; gift?: boolean | null; "max-bytes"?: number; }',
    );
  });

  it('types a recursive ref as unknown instead of looping', () => {
    const schema = {
      $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } } } },
      $ref: '#/$defs/Node',
    };
    expect(schemaType(schema).replace(/\s+/g, ' ')).toBe('{ next?: unknown; }');
  });
});
