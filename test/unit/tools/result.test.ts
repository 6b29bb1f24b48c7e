import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/errors/index.js';
import { convertToolResult } from '../../../src/tools/result.js';

const scene = { server: 'srv', tool: 't' };

describe('convertToolResult', () => {
  it('keeps each kind of content as a typed part and renders text', () => {
    const result = convertToolResult(
      {
        content: [
          { type: 'text', text: 'hello' },
          { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
          { type: 'audio', mimeType: 'audio/wav', data: 'UklGRg==' },
          { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'inside' } },
          { type: 'resource_link', uri: 'file:///b', name: 'b' },
        ],
      },
      scene,
    );
    expect(result.parts.map((p) => p.type)).toEqual(['text', 'image', 'audio', 'resource', 'resource_link']);
    expect(result.text).toContain('hello');
    expect(result.text).toContain('[image image/png');
    expect(result.text).toContain('inside');
    expect(result.isError).toBe(false);
  });

  it('cuts long text with a notice saying how much was left out', () => {
    const result = convertToolResult(
      { content: [{ type: 'text', text: 'x'.repeat(5000) }] },
      { ...scene, maxTextLength: 1000 },
    );
    expect(result.truncated).toBe(true);
    expect(result.text.startsWith('x'.repeat(1000))).toBe(true);
    expect(result.text).toMatch(
      /\[… truncated: 4\.0 k characters more; showing the first 1\.0 k characters\]$/,
    );
  });

  it('strips terminal controls, OSC-8 hyperlinks and OSC-52 clipboard writes', () => {
    const evil =
      'ok \u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007 \u001b]52;c;ZWNobyBwd25lZA==\u0007\u001b[2J done';
    const result = convertToolResult({ content: [{ type: 'text', text: evil }] }, scene);
    expect(result.text).toBe('ok click  done');
    expect(result.parts[0]).toEqual({ type: 'text', text: 'ok click  done' });
  });

  it('checks structuredContent against the outputSchema', () => {
    const outputSchema = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };
    const good = convertToolResult(
      { content: [], structuredContent: { sum: 3 } },
      { ...scene, outputSchema },
    );
    expect(good.structuredContent).toEqual({ sum: 3 });
    expect(good.text).toContain('"sum": 3');
    expect(() =>
      convertToolResult({ content: [], structuredContent: { sum: 'x' } }, { ...scene, outputSchema }),
    ).toThrow(
      expect.objectContaining({
        code: ErrorCode.InvalidToolOutput,
        message: expect.stringContaining('/sum: must be number'),
      }),
    );
    expect(() =>
      convertToolResult({ content: [{ type: 'text', text: '3' }] }, { ...scene, outputSchema }),
    ).toThrow(expect.objectContaining({ code: ErrorCode.InvalidToolOutput }));
    // A tool error carries no structured content, and that is fine.
    expect(
      convertToolResult(
        { content: [{ type: 'text', text: 'bad' }], isError: true },
        { ...scene, outputSchema },
      ).isError,
    ).toBe(true);
  });

  it('reports an outputSchema it cannot compile and passes the result through', () => {
    const reasons: string[] = [];
    const result = convertToolResult(
      { content: [], structuredContent: { a: 1 } },
      {
        ...scene,
        outputSchema: { type: 'object', properties: { a: { $ref: '#/missing' } } },
        onUncheckedSchema: (reason) => reasons.push(reason),
      },
    );
    expect(result.structuredContent).toEqual({ a: 1 });
    expect(reasons).toHaveLength(1);
  });

  it('lists every output problem', () => {
    const outputSchema = {
      type: 'object',
      properties: { sum: { type: 'number' }, unit: { type: 'string' } },
      required: ['sum', 'unit'],
    };
    const error = (() => {
      try {
        convertToolResult({ content: [], structuredContent: { sum: 'x' } }, { ...scene, outputSchema });
      } catch (e) {
        return e as Error & { causes: string[] };
      }
      return undefined;
    })();
    expect(error?.causes).toEqual(
      expect.arrayContaining(['/sum: must be number', "missing required property 'unit'"]),
    );
  });

  it('keeps embedded resources (text and blob) and links as typed parts, sanitized', () => {
    const result = convertToolResult(
      {
        content: [
          { type: 'resource', resource: { uri: 'file:///t', text: 'a\u001b[31mb' } },
          { type: 'resource', resource: { uri: 'file:///b', blob: 'AAAA', mimeType: 'application/zip' } },
          { type: 'resource_link', uri: 'https://x/y', name: 'y\u001b]52;c;Zm9v\u0007', description: 'd' },
        ],
      },
      scene,
    );
    expect(result.parts).toEqual([
      { type: 'resource', uri: 'file:///t', text: 'ab' },
      { type: 'resource', uri: 'file:///b', mimeType: 'application/zip', blob: 'AAAA' },
      { type: 'resource_link', uri: 'https://x/y', name: 'y', description: 'd' },
    ]);
  });

  it('does not truncate text within the limit', () => {
    const result = convertToolResult({ content: [{ type: 'text', text: 'x'.repeat(100) }] }, scene);
    expect(result).toMatchObject({ truncated: false, text: 'x'.repeat(100) });
  });
});
