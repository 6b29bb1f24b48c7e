import { describe, expect, it } from 'vitest';
import { toChatCompletionMessages } from '../../../src/agent/chat-messages.js';

describe('toChatCompletionMessages', () => {
  it('keeps a user message plain text when it is all text, and images as data URLs otherwise', () => {
    expect(
      toChatCompletionMessages([
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'look' },
            { type: 'image', mimeType: 'image/png', data: 'AAAA' },
          ],
        },
      ]),
    ).toEqual([
      { role: 'user', content: 'a\n\nb' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ]);
  });

  it('names an image in words in an assistant message, which the API takes as text only', () => {
    expect(
      toChatCompletionMessages([
        {
          role: 'assistant',
          parts: [
            { type: 'text', text: 'here' },
            { type: 'image', mimeType: 'image/gif', data: 'R0lG' },
          ],
        },
      ]),
    ).toEqual([{ role: 'assistant', content: 'here\n\n[image image/gif: not shown]' }]);
  });
});
