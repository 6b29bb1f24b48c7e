import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/client';
import { ErrorCode, McpxError } from '../errors/index.js';
import { renderContentBlock, stripTerminalControls } from '../text/index.js';
import { checkAgainstSchema, formatProblems } from './validate.js';

/** One piece of a tool result, typed, as agents and provider adapters use it. */
export type ToolResultPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly mimeType: string; readonly data: string }
  | { readonly type: 'audio'; readonly mimeType: string; readonly data: string }
  | {
      readonly type: 'resource';
      readonly uri: string;
      readonly mimeType?: string;
      readonly text?: string;
      readonly blob?: string;
    }
  | {
      readonly type: 'resource_link';
      readonly uri: string;
      readonly name: string;
      readonly mimeType?: string;
      readonly description?: string;
    };

/** A tool's result for a model: typed parts, bounded and sanitized text, whether it failed, and its checked `structuredContent`. */
export interface AgentToolResult {
  readonly parts: readonly ToolResultPart[];
  /** Everything as text a model or person can read, sanitized, within the size limit. */
  readonly text: string;
  /** The text was cut at the limit (a notice at its end says how much). */
  readonly truncated: boolean;
  /** The tool reported a failure: the model should see it and may try again. */
  readonly isError: boolean;
  readonly structuredContent?: unknown;
  /**
   * The server's result as it came, unsanitized (untrusted: never for a terminal as it is), for a
   * host that hands it to the tool's MCP App (`ui/notifications/tool-result`).
   */
  readonly result?: CallToolResult;
}

/** How `convertToolResult` turns a tool result into an `AgentToolResult`: which tool, its output schema, the text limit. */
export interface ConvertOptions {
  readonly server: string;
  readonly tool: string;
  /** The tool's `outputSchema`: a successful result's `structuredContent` must match it. */
  readonly outputSchema?: object;
  /** Longest text rendering, in characters. Default 100,000. */
  readonly maxTextLength?: number;
  /** Told when the `outputSchema` cannot be compiled (the output is then not checked). */
  readonly onUncheckedSchema?: (reason: string) => void;
}

/** The longest text of a tool result a model is given, in characters, unless `maxTextLength` says otherwise. */
export const DEFAULT_MAX_TEXT_LENGTH = 100_000;

function toPart(block: ContentBlock): ToolResultPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: stripTerminalControls(block.text) };
    case 'image':
    case 'audio':
      return { type: block.type, mimeType: block.mimeType, data: block.data };
    case 'resource': {
      const r = block.resource as { uri: string; mimeType?: string; text?: unknown; blob?: unknown };
      return {
        type: 'resource',
        uri: r.uri,
        ...(r.mimeType ? { mimeType: r.mimeType } : {}),
        ...(typeof r.text === 'string' ? { text: stripTerminalControls(r.text) } : {}),
        ...(typeof r.blob === 'string' ? { blob: r.blob } : {}),
      };
    }
    case 'resource_link':
      return {
        type: 'resource_link',
        uri: block.uri,
        name: stripTerminalControls(block.name),
        ...(block.mimeType ? { mimeType: block.mimeType } : {}),
        ...(block.description ? { description: stripTerminalControls(block.description) } : {}),
      };
    default:
      return { type: 'text', text: renderContentBlock(block) };
  }
}

function sizeOf(chars: number): string {
  if (chars >= 1_000_000) return `${(chars / 1_000_000).toFixed(1)} M characters`;
  if (chars >= 1_000) return `${(chars / 1_000).toFixed(1)} k characters`;
  return `${chars} characters`;
}

/** `text` cut to `max` characters with a notice saying how much was left out. */
export function truncateText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  return {
    text: `${text.slice(0, max)}\n[… truncated: ${sizeOf(text.length - max)} more; showing the first ${sizeOf(max)}]`,
    truncated: true,
  };
}

/**
 * A CallToolResult as typed parts plus a bounded, sanitized text rendering.
 * A successful result of a tool with an `outputSchema` must carry matching
 * `structuredContent`, else INVALID_TOOL_OUTPUT lists what is wrong.
 */
export function convertToolResult(result: CallToolResult, options: ConvertOptions): AgentToolResult {
  const content = (result.content ?? []) as ContentBlock[];
  const isError = result.isError === true;
  const structured = result.structuredContent;
  if (options.outputSchema && !isError) checkOutput(options, structured);
  const rendered =
    content.length === 0 && structured !== undefined
      ? stripTerminalControls(JSON.stringify(structured, null, 2))
      : content.map(renderContentBlock).join('\n');
  const { text, truncated } = truncateText(rendered, options.maxTextLength ?? DEFAULT_MAX_TEXT_LENGTH);
  return {
    parts: content.map(toPart),
    text,
    truncated,
    isError,
    ...(structured === undefined ? {} : { structuredContent: structured }),
    result,
  };
}

function checkOutput(options: ConvertOptions, structured: unknown): void {
  const scene = { server: options.server, tool: options.tool };
  if (structured === undefined) {
    throw new McpxError(
      ErrorCode.InvalidToolOutput,
      `'${options.server}' tool '${options.tool}' declares an outputSchema but returned no structuredContent`,
      { ...scene, fixes: ['report it to the server author; the tool breaks its own contract'] },
    );
  }
  const check = checkAgainstSchema(options.outputSchema as object, structured);
  if (check.ok === 'unchecked') options.onUncheckedSchema?.(check.reason);
  if (check.ok === false) {
    const problems = formatProblems(check.problems);
    throw new McpxError(
      ErrorCode.InvalidToolOutput,
      `'${options.server}' tool '${options.tool}' returned structuredContent that does not match its outputSchema: ${problems.join('; ')}`,
      {
        ...scene,
        causes: problems,
        fixes: ['report it to the server author; the tool breaks its own contract'],
      },
    );
  }
}
