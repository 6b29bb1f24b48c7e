import { describe, expect, it } from 'vitest';
import { templateVariables } from '../../../src/codegen/emit-entries.js';
import {
  assignByKey,
  assignFileNames,
  assignIdentifiers,
  identifierFor,
  schemaType,
} from '../../../src/codegen/index.js';
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

describe('tree file names', () => {
  it('are distinct on a case-insensitive file system, never the index or a Windows device, in a fixed order', () => {
    const files = assignFileNames(['getUrl', 'getURL', 'index', 'aux', 'echo']);
    expect(files).toEqual(
      new Map([
        ['aux', 'aux-2.ts'],
        ['echo', 'echo.ts'],
        ['getURL', 'getURL.ts'],
        ['getUrl', 'getUrl-2.ts'],
        ['index', 'index-2.ts'],
      ]),
    );
    expect(assignFileNames(['echo', 'index', 'getURL', 'aux', 'getUrl'])).toEqual(files);
  });

  it('are cut to a length every file system takes', () => {
    const long = 'a'.repeat(300);
    const files = assignFileNames([long, `${long}b`]);
    expect([...files.values()]).toEqual([`${'a'.repeat(100)}.ts`, `${'a'.repeat(100)}-2.ts`]);
  });
});

describe('resources and prompts', () => {
  it('number resources that share a name by their URIs', () => {
    const ids = assignByKey([
      { key: 'b://x', name: 'readme' },
      { key: 'a://x', name: 'readme' },
      { key: 'c://x', name: 'delete' },
    ]);
    expect(ids).toEqual(
      new Map([
        ['c://x', 'delete_'],
        ['a://x', 'readme'],
        ['b://x', 'readme2'],
      ]),
    );
  });

  it("types a URI template's variables: required, optional in a query, a list when exploded", () => {
    expect(templateVariables('file:///{root}/{+path}{/seg*}{?q,page}{&q}')).toEqual([
      { name: 'root', optional: false, list: false },
      { name: 'path', optional: false, list: false },
      { name: 'seg', optional: false, list: true },
      { name: 'q', optional: true, list: false },
      { name: 'page', optional: true, list: false },
    ]);
  });
});
