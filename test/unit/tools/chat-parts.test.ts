import { describe, expect, it } from 'vitest';
import { chatParts, describeParts, resourceContentBlocks } from '../../../src/tools/chat-parts.js';

describe('chatParts', () => {
  it('makes an image of a plain image type only, and describes what a model cannot take', () => {
    expect(chatParts({ type: 'image', mimeType: 'image/png', data: 'AAAA' })).toEqual([
      { type: 'image', mimeType: 'image/png', data: 'AAAA' },
    ]);
    // A type that would break out of the data URL it ends up in is described instead.
    expect(
      chatParts({ type: 'image', mimeType: 'image/png;base64,x\u001b]0;t\u0007', data: 'AAAA' }),
    ).toEqual([{ type: 'text', text: '[image image/png;base64,x, 3 bytes]' }]);
    expect(chatParts({ type: 'audio', mimeType: 'audio/wav', data: 'AAAAAAAA' })).toEqual([
      { type: 'text', text: '[audio audio/wav, 6 bytes]' },
    ]);
    expect(
      chatParts({
        type: 'resource',
        resource: { uri: 'file:///a.bin', mimeType: 'application/pdf', blob: 'AAAA' },
      }),
    ).toEqual([{ type: 'text', text: '[resource file:///a.bin (application/pdf), 3 bytes]' }]);
  });

  it('labels embedded text with its URI, cleaned of hidden characters and cut at the limit', () => {
    const [part] = chatParts(
      {
        type: 'resource',
        resource: { uri: 'test://a', mimeType: 'text/plain', text: 'ab\u200bc\u{E0041}d'.repeat(10) },
      },
      { maxTextLength: 30 },
    );
    expect(part).toEqual({
      type: 'text',
      text: expect.stringMatching(/^\[resource test:\/\/a \(text\/plain\)\]\nabcdabcd/),
    });
    expect(part?.type === 'text' && part.text).toMatch(/\[… truncated: /);
    expect(part?.type === 'text' && part.text).not.toMatch(/[\u200b]|\u{E0041}/u);
  });
});

describe('resourceContentBlocks', () => {
  it('turns an image blob into an image block and keeps the rest as embedded resources', () => {
    expect(
      resourceContentBlocks({
        contents: [
          { uri: 'test://i', mimeType: 'image/png', blob: 'AAAA' },
          { uri: 'test://t', text: 'hi' },
          { uri: 'test://b', mimeType: 'application/zip', blob: 'AAAA' },
        ],
      }),
    ).toEqual([
      { type: 'image', mimeType: 'image/png', data: 'AAAA' },
      { type: 'resource', resource: { uri: 'test://t', text: 'hi' } },
      { type: 'resource', resource: { uri: 'test://b', mimeType: 'application/zip', blob: 'AAAA' } },
    ]);
    expect(
      describeParts([
        { type: 'text', text: 'abc' },
        { type: 'image', mimeType: 'image/png', data: 'A'.repeat(2048) },
      ]),
    ).toBe('3 characters, 1 image (1.5 KB)');
  });
});
