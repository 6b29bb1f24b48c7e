/**
 * MCP content (prompt messages, resource contents) as provider-neutral chat
 * parts for a model's context: text and images, everything else described in
 * words. Text is cleaned for a model ({@link forModel}) and bounded.
 */
import type { ContentBlock, ReadResourceResult } from '@modelcontextprotocol/client';
import { forModel, renderContentBlock } from '../text/index.js';
import { DEFAULT_MAX_TEXT_LENGTH, truncateText } from './result.js';

/** One piece of a chat message, in a form every provider adapter can take. */
export type ChatPart =
  | { readonly type: 'text'; readonly text: string }
  /** Base64 `data`; `mimeType` is always `image/<subtype>`. */
  | { readonly type: 'image'; readonly mimeType: string; readonly data: string };

/** A message of a conversation, as a prompt template gives it. */
export interface ChatMessage {
  readonly role: 'user' | 'assistant';
  readonly parts: readonly ChatPart[];
}

/** How content becomes chat parts: the longest text of one part. */
export interface ChatPartsOptions {
  /** Longest text of one part, in characters (default 100,000); longer text is cut with a notice. */
  readonly maxTextLength?: number;
}

// Only a plain `image/<subtype>` becomes an image: the type ends up in a data URL a provider parses.
const IMAGE_TYPE = /^image\/[a-z0-9][a-z0-9.+-]*$/i;

/** True when `mimeType` names an image a model can be shown. */
export function isImageType(mimeType: string | undefined): mimeType is string {
  return mimeType !== undefined && IMAGE_TYPE.test(mimeType);
}

/** Server text cleaned for a model and cut at the limit. */
function bounded(raw: string, options: ChatPartsOptions): string {
  return truncateText(forModel(raw), options.maxTextLength ?? DEFAULT_MAX_TEXT_LENGTH).text;
}

function text(raw: string, options: ChatPartsOptions): ChatPart {
  return { type: 'text', text: bounded(raw, options) };
}

/**
 * One MCP content block as chat parts: text as text, an image as an image, an
 * embedded text resource as text labelled with its URI, and what a model cannot
 * take (audio, binary resources, links) described in one line.
 */
export function chatParts(block: ContentBlock, options: ChatPartsOptions = {}): ChatPart[] {
  switch (block.type) {
    case 'text':
      return [text(block.text, options)];
    case 'image':
      if (isImageType(block.mimeType)) return [{ type: 'image', mimeType: block.mimeType, data: block.data }];
      return [text(renderContentBlock(block), options)];
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string') {
        // The label stays whole however long the text: the limit applies to the text.
        const label = forModel(
          `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}]`,
        );
        return [{ type: 'text', text: `${label}\n${bounded(resource.text, options)}` }];
      }
      return [text(renderContentBlock(block), options)];
    }
    default:
      return [text(renderContentBlock(block), options)];
  }
}

/**
 * A `resources/read` result as content blocks, the shape tool results have: an
 * image blob becomes an image block, anything else an embedded resource.
 */
export function resourceContentBlocks(result: ReadResourceResult): ContentBlock[] {
  return result.contents.map((content): ContentBlock => {
    if ('blob' in content && typeof content.blob === 'string' && isImageType(content.mimeType))
      return { type: 'image', mimeType: content.mimeType, data: content.blob };
    return { type: 'resource', resource: content };
  });
}

/** How much a set of parts holds, for a person: `88 characters`, `2 images`. */
export function describeParts(parts: readonly ChatPart[]): string {
  const chars = parts.reduce((n, p) => n + (p.type === 'text' ? p.text.length : 0), 0);
  const images = parts.filter((p) => p.type === 'image');
  const bytes = images.reduce((n, p) => n + Math.floor((p.data.length * 3) / 4), 0);
  const pieces = [`${chars} character${chars === 1 ? '' : 's'}`];
  if (images.length)
    pieces.push(`${images.length} image${images.length === 1 ? '' : 's'} (${(bytes / 1024).toFixed(1)} KB)`);
  return pieces.join(', ');
}
