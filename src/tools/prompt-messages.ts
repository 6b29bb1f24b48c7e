import type { Prompt, Tool } from '@modelcontextprotocol/client';
import type { RequestControl, ServerConnection } from '../client/index.js';
import { suggest } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { ServerRegistry } from '../registry/index.js';
import { forModel } from '../text/index.js';
import { type ChatMessage, type ChatPartsOptions, chatParts } from './chat-parts.js';

/**
 * What the permission guard is asked about a server's prompts: MCP's method name, which no
 * tool can have. A profile's tool globs or an entry's `allow_tools` must name it (or match it)
 * for the server's prompts to be offered, as `resources/read` for its resources.
 */
export const PROMPT_ACTION = {
  name: 'prompts/get',
  description: 'Get one prompt of this server, filled in with its arguments',
  inputSchema: { type: 'object' },
} as const satisfies Tool;

/** How `promptMessages` fills in a prompt: cancellation, the agent asking, the longest text of a part. */
export interface PromptMessagesOptions extends ChatPartsOptions {
  readonly signal?: AbortSignal;
  /** With a registry: the agent asking (it sees shared servers and its own). */
  readonly agentId?: string;
}

/** A prompt template filled in, ready to be put into a conversation. */
export interface PromptMessages {
  readonly server: string;
  readonly prompt: string;
  /** The server's description of the result, cleaned like the messages. */
  readonly description?: string;
  readonly messages: readonly ChatMessage[];
}

/**
 * A server's prompt as provider-neutral chat messages: each message's role
 * and its parts (text, images; an embedded resource as text labelled with
 * its URI; audio and binary content described), with terminal controls and
 * hidden characters removed. The arguments are checked against the prompt's
 * declaration first: a missing required argument or an undeclared one is an
 * INVALID_ARGUMENTS error naming them, an unknown prompt UNKNOWN_PROMPT.
 *
 * `from` is a registry (the server is connected on first use, as for a tool
 * call) or one open connection.
 *
 * @example
 * const { messages } = await promptMessages(registry, 'demo', 'greeting', { name: 'Ada' });
 * // [{ role: 'user', parts: [{ type: 'text', text: 'Please write a short, friendly greeting for Ada.' }] }]
 */
export async function promptMessages(
  from: ServerRegistry | ServerConnection,
  server: string,
  prompt: string,
  args: Readonly<Record<string, string>> = {},
  options: PromptMessagesOptions = {},
): Promise<PromptMessages> {
  const control: RequestControl = options.signal ? { signal: options.signal } : {};
  const render = async (connection: ServerConnection) => {
    if (!connection.capabilities.prompts) {
      throw new McpxError(ErrorCode.UnknownPrompt, `'${server}' offers no prompts`, {
        server,
        causes: ['its capabilities do not include prompts'],
      });
    }
    checkArguments(server, findPrompt(server, prompt, await connection.listPrompts(control)), args);
    return connection.getPrompt(prompt, { ...args }, control);
  };
  const result =
    from instanceof ServerRegistry ? await from.use(server, render, options.agentId) : await render(from);
  return {
    server,
    prompt,
    ...(result.description ? { description: forModel(result.description) } : {}),
    messages: result.messages.map((message) => ({
      role: message.role,
      parts: chatParts(message.content, options),
    })),
  };
}

function findPrompt(server: string, name: string, prompts: readonly Prompt[]): Prompt {
  const found = prompts.find((p) => p.name === name);
  if (found) return found;
  const guess = suggest(
    name,
    prompts.map((p) => p.name),
  );
  throw new McpxError(
    ErrorCode.UnknownPrompt,
    `'${server}' has no prompt named '${name}'${guess ? ` — did you mean '${guess}'?` : ''}`,
    {
      server,
      fixes: [
        prompts.length
          ? `its prompts: ${prompts.map((p) => p.name).join(', ')}`
          : `'${server}' lists no prompts`,
      ],
    },
  );
}

/** The declared required arguments are all given, and nothing undeclared is. */
function checkArguments(server: string, prompt: Prompt, args: Readonly<Record<string, string>>): void {
  const declared = prompt.arguments ?? [];
  const missing = declared.filter((a) => a.required && args[a.name] === undefined);
  const names = declared.map((a) => a.name);
  const unknown = Object.keys(args).filter((key) => !names.includes(key));
  if (missing.length === 0 && unknown.length === 0) return;
  const causes = [
    ...missing.map((a) => `missing: ${a.name}${a.description ? ` — ${a.description}` : ''}`),
    ...unknown.map((key) => {
      const guess = suggest(key, names);
      return `not an argument of '${prompt.name}': ${key}${guess ? ` (did you mean '${guess}'?)` : ''}`;
    }),
  ];
  const what = [
    missing.length ? `needs ${missing.map((a) => a.name).join(', ')}` : '',
    unknown.length ? `takes no ${unknown.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  throw new McpxError(ErrorCode.InvalidArguments, `prompt '${prompt.name}' of '${server}' ${what}`, {
    server,
    causes,
    fixes: [
      missing.length
        ? `give ${missing.map((a) => `${a.name}${a.description ? ` (${a.description})` : ''}`).join(', ')}`
        : names.length
          ? `its arguments: ${declared.map((a) => `${a.name}${a.required ? '' : ' (optional)'}`).join(', ')}`
          : `'${prompt.name}' takes no arguments`,
    ],
  });
}
