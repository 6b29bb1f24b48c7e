import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ChatMessage, ChatPart } from '../tools/index.js';

/**
 * Provider-neutral chat messages (a prompt template, an attached resource) in
 * the Chat Completions format the chat model speaks: a user message keeps its
 * images as `image_url` parts (data URLs); an assistant message is text only
 * in that API, so its images are named in words.
 */
export function toChatCompletionMessages(messages: readonly ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((message): ChatCompletionMessageParam => {
    if (message.role === 'assistant')
      return { role: 'assistant', content: message.parts.map(asText).join('\n\n') };
    if (message.parts.every((p) => p.type === 'text'))
      return { role: 'user', content: message.parts.map(asText).join('\n\n') };
    return {
      role: 'user',
      content: message.parts.map(
        (p): ChatCompletionContentPart =>
          p.type === 'text'
            ? { type: 'text', text: p.text }
            : { type: 'image_url', image_url: { url: `data:${p.mimeType};base64,${p.data}` } },
      ),
    };
  });
}

function asText(part: ChatPart): string {
  return part.type === 'text' ? part.text : `[image ${part.mimeType}: not shown]`;
}
