import { describe, expect, it } from 'vitest';
import { renderContent } from '../../../src/text/render-content.js';

describe('renderContent', () => {
  it('shows text plainly and describes binary content', () => {
    const text = renderContent([
      { type: 'text', text: 'hello \u001b[31mworld' },
      { type: 'image', data: 'A'.repeat(4096), mimeType: 'image/png' },
      { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside' } },
      {
        type: 'resource',
        resource: { uri: 'file:///b.bin', blob: 'AAAA', mimeType: 'application/octet-stream' },
      },
      { type: 'resource_link', uri: 'file:///c', name: 'c' },
    ]);
    expect(text.split('\n')).toEqual([
      'hello world',
      '[image image/png, 3.0 KB]',
      '[audio audio/wav, 3 bytes]',
      'inside',
      '[resource file:///b.bin (application/octet-stream), 3 bytes]',
      '[link c: file:///c]',
    ]);
  });

  it('shows structured content as JSON when there is no content', () => {
    expect(renderContent([], { sum: 5 })).toBe('{\n  "sum": 5\n}');
  });
});
