import type { ContentBlock } from '@modelcontextprotocol/client';
import { stripTerminalControls } from './sanitize.js';

function describeBytes(base64: string): string {
  const bytes = Math.floor((base64.length * 3) / 4);
  return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${bytes} byte${bytes === 1 ? '' : 's'}`;
}

/**
 * One content block as text a person can read. Text is shown as is (minus
 * terminal controls); binary content is described, never dumped.
 */
export function renderContentBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return stripTerminalControls(block.text);
    case 'image':
      return `[image ${stripTerminalControls(block.mimeType)}, ${describeBytes(block.data)}]`;
    case 'audio':
      return `[audio ${stripTerminalControls(block.mimeType)}, ${describeBytes(block.data)}]`;
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string')
        return stripTerminalControls(resource.text);
      const mime = resource.mimeType ? ` (${resource.mimeType})` : '';
      const size =
        'blob' in resource && typeof resource.blob === 'string' ? `, ${describeBytes(resource.blob)}` : '';
      return stripTerminalControls(`[resource ${resource.uri}${mime}${size}]`);
    }
    case 'resource_link': {
      const title = block.title ?? block.name;
      return stripTerminalControls(`[link ${title}: ${block.uri}]`);
    }
    default:
      return `[${stripTerminalControls(String((block as { type?: unknown }).type))} content]`;
  }
}

/** Blocks joined by newlines; a result with only structured content shows its JSON. */
export function renderContent(content: readonly ContentBlock[], structuredContent?: unknown): string {
  if (content.length === 0 && structuredContent !== undefined) {
    return stripTerminalControls(JSON.stringify(structuredContent, null, 2));
  }
  return content.map(renderContentBlock).join('\n');
}
