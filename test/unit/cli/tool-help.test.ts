import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { describeType } from '../../../src/cli/tool-help/describe-type.js';
import { renderToolHelp } from '../../../src/cli/tool-help/render-tool-help.js';
import { renderToolLine } from '../../../src/cli/tool-help/tool-line.js';
import { wrapText } from '../../../src/cli/tool-help/wrap.js';
import { WILD_SCHEMA_TOOL } from '../../../src/testing/wild-schema-tool.js';

describe('describeType', () => {
  const root = { $defs: { Id: { type: 'string' } } };
  it.each([
    [{ type: 'string' }, 'string'],
    [{ type: ['integer', 'null'] }, 'integer | null'],
    [{ type: 'integer', nullable: true }, 'integer | null'],
    [{ enum: ['a', 'b'] }, '"a" | "b"'],
    [{ const: 3 }, '3'],
    [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, 'string | number'],
    [{ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } }, '(string | number)[]'],
    [{ type: 'array', items: { type: 'array', items: { $ref: '#/$defs/Id' } } }, 'string[][]'],
    [{ $ref: '#/$defs/Id' }, 'string'],
    [{ $ref: '#/$defs/Missing' }, 'any'],
    [{}, 'any'],
    [{ properties: { a: {} } }, 'object'],
  ])('%j → %s', (schema, text) => {
    expect(describeType(schema, root)).toBe(text);
  });
});

describe('renderToolHelp', () => {
  it('wraps every line to the width and keeps every word', () => {
    const help = renderToolHelp(WILD_SCHEMA_TOOL, { server: 'w', width: 40 });
    for (const line of help.split('\n')) expect(line.length).toBeLessThanOrEqual(40);
    expect(help.replace(/\s+/g, ' ')).toContain('as hand-written schemas do.');
  });

  it('keeps lines whole without a width, and takes the shell’s call prefix', () => {
    const help = renderToolHelp(WILD_SCHEMA_TOOL, { server: 'w', callPrefix: '@w inspect_args' });
    expect(help).toContain(`  ${WILD_SCHEMA_TOOL.description}\n`);
    expect(help).toContain('Example:\n  @w inspect_args id=text\n');
  });

  it('drops escape sequences and shows hidden characters from a hostile definition', () => {
    const tool: Tool = {
      name: 'evil\u001b[2J',
      description: 'clears\u001b]52;c;ZWNobw==\u0007 the screen\u202e',
      inputSchema: {
        type: 'object',
        properties: { 'k\u001b[31m': { type: 'string', description: 'red\u001b[0m', default: '\u001b[1m' } },
        required: ['k\u001b[31m'],
      },
    };
    const help = renderToolHelp(tool, { server: 's', width: 60 });
    expect(help).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(help).toContain('<U+202E>');
  });

  it('quotes example values for the shell and escapes a leading @', () => {
    const tool: Tool = {
      name: 't',
      inputSchema: {
        type: 'object',
        properties: {
          q: { type: 'string', examples: ["it's here"] },
          who: { type: 'string', default: '@ada' },
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: ['q', 'who', 'tags'],
      },
    };
    expect(renderToolHelp(tool, { server: 's' })).toContain(
      `Example:\n  mcpx call s.t q='it'\\''s here' who=@@ada tags='[]'\n`,
    );
  });
});

describe('wrapText', () => {
  it('cuts a word longer than the line instead of overflowing', () => {
    expect(wrapText(`see ${'x'.repeat(30)} now`, 24, '  ')).toEqual([
      '  see',
      `  ${'x'.repeat(22)}`,
      `  ${'x'.repeat(8)} now`,
    ]);
  });
});

describe('renderToolLine', () => {
  const tool: Tool = {
    name: 'search',
    description: `Find things. ${'Many words follow here. '.repeat(10)}The end.`,
    inputSchema: {
      type: 'object',
      properties: { q: { type: 'string' }, n: { type: ['integer', 'null'] } },
      required: ['q'],
    },
  };

  it('fits the terminal, cutting the description with an ellipsis', () => {
    const line = renderToolLine(tool, 80).trimEnd();
    expect(line.startsWith('  search(q: string, n?: integer | null)  Find things. Many')).toBe(true);
    expect(line.endsWith('…')).toBe(true);
    expect(line.length).toBe(80);
  });

  it('puts the description under a signature too long for the line', () => {
    const lines = renderToolLine(tool, 30).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^ {2}search\(q: string, n\?: in.*…$/);
    expect(lines[1]).toMatch(/^ {6}Find things\./);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(30);
  });

  it('prints the full text when piped', () => {
    expect(renderToolLine(tool)).toContain('The end.\n');
  });

  it('marks a tool for its MCP App alone before its description, even when the line is cut', () => {
    const appOnly: Tool = { ...tool, _meta: { ui: { resourceUri: 'ui://x/y.html', visibility: ['app'] } } };
    expect(renderToolLine(appOnly, 80)).toMatch(
      /^ {2}search\(q: string, n\?: integer \| null\) {2}\[app only\] Find/,
    );
    expect(renderToolLine(appOnly)).toContain('  [app only] Find things.');
    const both: Tool = {
      ...tool,
      _meta: { ui: { resourceUri: 'ui://x/y.html', visibility: ['model', 'app'] } },
    };
    expect(renderToolLine(both)).not.toContain('[app only]');
  });
});
