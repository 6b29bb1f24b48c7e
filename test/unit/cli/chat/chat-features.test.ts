/** What `mcpx chat` asks the person before sampling, forms and URLs, driven through a fake terminal. */
import type { CreateMessageRequestParams, ElicitRequestFormParams } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { ChatModel } from '../../../../src/agent/chat-model.js';
import { chatFeatures } from '../../../../src/cli/chat/chat-features.js';
import { nodeServer } from '../../../helpers/servers.js';
import { FakeTerminal, KEY } from '../../../helpers/terminal.js';

const server = nodeServer('srv', 'unused.js');

function setup(interactive = true) {
  const terminal = new FakeTerminal();
  const asked: unknown[] = [];
  const model: ChatModel = {
    model: 'small-model',
    complete: async (request) => {
      asked.push(request);
      return { role: 'assistant', content: 'a haiku' };
    },
  };
  const features = chatFeatures({
    model,
    roots: ['/work'],
    ...(interactive ? { terminal: terminal.terminal } : {}),
    notice: (line: string) => terminal.output.write(`${line}\n`),
  })(server);
  return { terminal, features, asked };
}

const sampling: CreateMessageRequestParams = {
  messages: [{ role: 'user', content: { type: 'text', text: 'Write a haiku\u202e' } }],
  maxTokens: 50,
  modelPreferences: { hints: [{ name: 'claude-3' }] },
};
const context = { signal: new AbortController().signal };

describe('chat sampling consent', () => {
  it('shows the request and its model hints, and asks the model once allowed', async () => {
    const { terminal, features, asked } = setup();
    const reply = features.sampling?.createMessage(sampling, context);
    await terminal.answer('Allow?', 'y', KEY.enter);
    expect(await reply).toMatchObject({ model: 'small-model', content: { type: 'text', text: 'a haiku' } });
    expect(asked).toHaveLength(1);
    expect(terminal.screen).toContain('it prefers claude-3, you use');
    expect(terminal.screen).toContain('small-model');
    expect(terminal.screen).toContain('Write a haiku<U+202E>');
  });

  it('refuses when the person says no, without asking the model', async () => {
    const { terminal, features, asked } = setup();
    const reply = features.sampling?.createMessage(sampling, context).catch((e: unknown) => e);
    await terminal.answer('Allow?', 'n', KEY.enter);
    expect(await reply).toMatchObject({ message: expect.stringMatching(/declined/) });
    expect(asked).toHaveLength(0);
  });

  it('refuses without a terminal, asking nobody', async () => {
    const { terminal, features } = setup(false);
    await expect(features.sampling?.createMessage(sampling, context)).rejects.toThrow(/no terminal/);
    expect(terminal.screen).toBe('');
  });
});

describe('chat elicitation forms', () => {
  const form: ElicitRequestFormParams = {
    mode: 'form',
    message: 'Tell me about you',
    requestedSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Your name' },
        subscribe: { type: 'boolean', title: 'Subscribe' },
        color: { type: 'string', title: 'Colour', enum: ['red', 'green', 'blue'] },
        size: {
          type: 'string',
          title: 'Size',
          oneOf: [
            { const: 's', title: 'Small' },
            { const: 'l', title: 'Large' },
          ],
        },
        age: { type: 'integer', title: 'Age', minimum: 0 },
        tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['a', 'b', 'c'] } },
        nickname: { type: 'string', title: 'Nickname' },
      },
      required: ['name', 'age'],
    },
  };

  it('asks each field with the prompt its type needs and returns typed values', async () => {
    const { terminal, features } = setup();
    const result = features.elicitation?.form?.(form, context);
    await terminal.answer('Cancel', KEY.enter);
    await terminal.answer('Your name', ...'Ada', KEY.enter);
    await terminal.answer('Subscribe', 'y', KEY.enter);
    await terminal.answer('blue', KEY.down, KEY.enter);
    await terminal.answer('Large', KEY.down, KEY.enter);
    // Below the minimum: the prompt refuses it and asks again.
    await terminal.answer('Age', '-', '1', KEY.enter);
    await terminal.answer('0', KEY.backspace, KEY.backspace, '4', '2', KEY.enter);
    await terminal.answer('Tags', KEY.space, KEY.down, KEY.down, KEY.space, KEY.enter);
    await terminal.answer('Nickname (optional)', KEY.enter);
    expect(await result).toEqual({
      action: 'accept',
      content: { name: 'Ada', subscribe: true, color: 'green', size: 'l', age: 42, tags: ['a', 'c'] },
    });
  });

  it('declines or cancels when asked to', async () => {
    const { terminal, features } = setup();
    const declined = features.elicitation?.form?.(form, context);
    await terminal.answer('Cancel', KEY.down, KEY.enter);
    expect(await declined).toEqual({ action: 'decline' });
  });

  it('shows a URL request without opening anything, and declines without a terminal', async () => {
    const { terminal, features } = setup();
    const params = {
      mode: 'url' as const,
      message: 'Link your account',
      url: 'https://example.com/link',
      elicitationId: 'e1',
    };
    const answered = features.elicitation?.url?.(params, context);
    await terminal.answer('Will you visit it?', 'y', KEY.enter);
    expect(await answered).toEqual({ action: 'accept' });
    expect(terminal.screen).toContain('https://example.com/link');
    expect(terminal.screen).toContain('mcpx will not open it');
    expect(await setup(false).features.elicitation?.url?.(params, context)).toEqual({ action: 'decline' });
  });
});
