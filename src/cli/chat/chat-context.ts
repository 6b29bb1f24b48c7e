/**
 * Chat's context commands: `/attach <server> <uri>` puts a resource into the
 * conversation, `/prompt <server> <name> [key=value …]` a prompt template's
 * messages. What goes in is cleaned for the model (`forModel`) and bounded;
 * what is said on screen is cleaned for the terminal (`session.notice`).
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { toChatCompletionMessages } from '../../agent/index.js';
import { ErrorCode, McpxError } from '../../errors/index.js';
import type { ServerRegistry } from '../../registry/index.js';
import {
  type ChatPart,
  chatParts,
  DEFAULT_MAX_TEXT_LENGTH,
  describeParts,
  promptMessages,
  resourceContentBlocks,
} from '../../tools/index.js';
import { cliArgumentSources } from '../arguments/cli-sources.js';
import { parseArgumentWords, promptArguments, readArgumentSources } from '../arguments/type-arguments.js';
import type { CliContext } from '../context/context.js';
import { plural } from '../output/plural.js';

export interface ChatContextOptions {
  readonly session: CliContext;
  readonly registry: ServerRegistry;
  readonly agentId: string;
  /** The conversation: what the commands put in is appended. */
  readonly history: ChatCompletionMessageParam[];
}

/** A chat command: runs, and says whether the model should answer now. */
export interface ChatCommand {
  /** What follows the name in /help. */
  readonly usage: string;
  readonly help: string;
  run(args: readonly string[], signal: AbortSignal): Promise<boolean>;
  /** Candidates for the word after `words` (the operands typed so far). */
  complete(words: readonly string[]): Promise<readonly string[]>;
}

/** `/attach` and `/prompt` for one chat. */
export function chatContextCommands(options: ChatContextOptions): {
  readonly attach: ChatCommand;
  readonly prompt: ChatCommand;
} {
  const { session, registry, agentId, history } = options;
  const say = (line: string) => session.notice(line);
  const serverNames = () => registry.list(agentId).map((s) => s.name);
  const serverOf = async (name: string) => (await session.host.server(name)).name;

  const attach: ChatCommand = {
    usage: '<server> <uri>',
    help: 'put a resource into the conversation (the model sees it next)',
    async run(args, signal) {
      const [name, uri, ...extra] = args;
      if (!name || !uri || extra.length)
        throw usage('/attach takes a server and a resource URI', '/attach demo test://readme.txt');
      const server = await serverOf(name);
      const result = await registry.use(server, (c) => c.readResource(uri, { signal }), agentId);
      const blocks = resourceContentBlocks(result);
      const parts = blocks.flatMap((block) => chatParts(block));
      if (parts.length === 0)
        throw new McpxError(ErrorCode.ServerRejected, `${uri} is empty: nothing attached`, { server });
      if (blocks.every((b) => b.type === 'resource' && !('text' in b.resource))) {
        throw new McpxError(
          ErrorCode.InvalidArguments,
          `${uri} is binary (${result.contents[0]?.mimeType ?? 'no type given'}): the model takes text and images, so nothing was attached`,
          { server, fixes: ['attach a text or image resource'] },
        );
      }
      const header: ChatPart = {
        type: 'text',
        text: `Attached by the user: ${uri} from the MCP server '${server}'.`,
      };
      history.push(...toChatCompletionMessages([{ role: 'user', parts: [header, ...parts] }]));
      const chars = result.contents.reduce((n, c) => n + ('text' in c ? String(c.text).length : 0), 0);
      const cut =
        chars > DEFAULT_MAX_TEXT_LENGTH ? `, cut to the first ${DEFAULT_MAX_TEXT_LENGTH} characters` : '';
      say(
        `attached ${uri} from ${server} (${describeParts(parts)}${cut}): the model sees it with your next message`,
      );
      return false;
    },
    async complete(words) {
      if (words.length === 0) return serverNames();
      if (words.length > 1) return [];
      const resources = await registry.use(words[0] ?? '', (c) => c.listResources(), agentId);
      return resources.map((r) => r.uri);
    },
  };

  const prompt: ChatCommand = {
    usage: '<server> <name> [key=value …]',
    help: "put a prompt's messages into the conversation; the model answers one that ends with yours",
    async run(args, signal) {
      const [name, promptName, ...words] = args;
      if (!name || !promptName)
        throw usage('/prompt takes a server and a prompt name', '/prompt demo greeting name=Ada');
      const server = await serverOf(name);
      const { readFile } = cliArgumentSources({ cwd: session.io.cwd });
      const values = promptArguments(await readArgumentSources(parseArgumentWords(words), { readFile }));
      const filled = await promptMessages(registry, server, promptName, values, { signal, agentId });
      const last = filled.messages.at(-1);
      if (!last)
        throw new McpxError(
          ErrorCode.ServerRejected,
          `prompt '${promptName}' of '${server}' has no messages`,
          {
            server,
          },
        );
      history.push(...toChatCompletionMessages(filled.messages));
      const roles = [...new Set(filled.messages.map((m) => m.role))].join(' and ');
      const answerNow = last.role === 'user';
      say(
        `prompt ${promptName} from ${server}: ${plural(filled.messages.length, 'message')} (${roles}; ${describeParts(filled.messages.flatMap((m) => m.parts))}) added${answerNow ? '; the model answers it now' : '; type to go on'}`,
      );
      return answerNow;
    },
    async complete(words) {
      if (words.length === 0) return serverNames();
      const prompts = await registry.use(words[0] ?? '', (c) => c.listPrompts(), agentId);
      if (words.length === 1) return prompts.map((p) => p.name);
      const given = new Set(words.slice(2).map((w) => w.split('=')[0]));
      const declared = prompts.find((p) => p.name === words[1])?.arguments ?? [];
      return declared.filter((a) => !given.has(a.name)).map((a) => `${a.name}=`);
    },
  };
  return { attach, prompt };
}

function usage(message: string, example: string): McpxError {
  return new McpxError(ErrorCode.Usage, message, { fixes: [`e.g. ${example}`] });
}
