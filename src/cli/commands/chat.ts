import { createInterface } from 'node:readline/promises';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import {
  type AgentTurnOptions,
  type ChatModel,
  continueAgentTurn,
  DEFAULT_BASE_URL,
  openAICompatibleModel,
  runAgentTurn,
} from '../../agent/index.js';
import { ErrorCode, McpxError, toMcpxError } from '../../errors/index.js';
import { forTerminal, say } from '../../text/index.js';
import {
  type AgentToolSet,
  CALL_TOOL,
  LIST_RESOURCES_TOOL,
  LOAD_SKILL_TOOL,
  READ_RESOURCE_TOOL,
  READ_SKILL_FILE_TOOL,
  SEARCH_THRESHOLD,
  SEARCH_TOOL,
} from '../../tools/index.js';
import { tellAppLink } from '../apps/app-link.js';
import { type ChatCommand, chatContextCommands } from '../chat/chat-context.js';
import { chatFeatures } from '../chat/chat-features.js';
import { createChatJsonRecorder } from '../chat/chat-json.js';
import type { CliContext, CliDoor } from '../context/context.js';
import { usageError } from '../context/global-options.js';
import { noticeHeldSettings } from '../context/held-settings.js';
import { permissionFlag, profileFlag } from '../context/permission-level.js';
import { ExitCode } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';
import { plural } from '../output/plural.js';
import { parseLine } from '../shell/parse-line.js';
import { retryInConsole, runShell, type ShellOptions } from '../shell/shell.js';
import { writeError } from '../target/report.js';

export interface ChatOptions {
  readonly model?: string;
  readonly baseUrl?: string;
  readonly permission?: string;
  readonly maxSteps?: string;
  /** One question, its final answer on stdout, then exit. */
  readonly once?: string;
  /** Offer the model `list_resources` and `read_resource`. */
  readonly resources?: boolean;
  /** The config's profile: only its servers and tools reach the model. */
  readonly profile?: string;
}

const SYSTEM_PROMPT =
  'You are a helpful assistant with tools from MCP servers. Use a tool when it helps; say plainly when a tool failed or was denied.';

/**
 * `mcpx chat`: an agent with every configured server's tools, talking to an
 * OpenAI-compatible model. Lines come from stdin (a prompt on a terminal);
 * answers go to stdout, tool activity to stderr. Tool calls are decided by the
 * permission level (`trusted` by default: each server is asked about on first
 * use; with no terminal, what needs asking is denied and the model is told).
 */
export async function runChat(door: CliDoor, options: ChatOptions): Promise<number> {
  const { io } = door;
  const stdin = io.stdin ?? process.stdin;
  const permission = permissionFlag(options.permission);
  const { model, maxSteps } = chatModel(options, io);
  // `--once --json`: one JSON object on stdout (see chat-json.ts for its shape).
  const record =
    options.once !== undefined && door.options.json ? createChatJsonRecorder(model.model) : undefined;
  const session = door.open({
    command: 'mcpx chat',
    profile: profileFlag(options.profile, io),
    permission,
    features: chatFeatures({
      model,
      ...(io.interactive && io.terminal ? { terminal: io.terminal } : {}),
      notice: (line) => door.notice(line),
      ...(io.cancel ? { onInterrupt: io.cancel } : {}),
    }),
    offerConfigRoots: true,
    // The built-in demo is for trying mcpx out; beside the person's own servers it only distracts the model.
    omitBuiltinWhenConfigured: true,
    // A chat lives long: a server that crashes comes back on the model's next call to it.
    reconnect: 'lazy',
    // On a terminal chat is the console, whose advice names its own commands.
    ...(io.interactive && io.terminal ? { retryAdvice: retryInConsole } : {}),
  });
  // A repository's file can only lower the level, and only once trusted (see LoadedConfig.heldSettings).
  await noticeHeldSettings(session);
  const level = await session.host.permissionLevel();
  const registry = await session.host.registry();
  // Each server connected and, on a terminal, put to the person before the model sees its tools
  // (seed 004's consent, the host's for every agent); with no terminal each call is refused instead.
  const tools = await session.host.agentTools({
    agentId: 'chat',
    audit: { trail: session.host.audit(), who: { client: 'chat' } },
    // Resource reads are decided by the guard like tool calls; sandboxed has no MCP access at all.
    resources: options.resources === true && level !== 'sandboxed',
  });
  noticeUnavailable(session, registry, record);
  // The console's `/mcp connect --allow-all` approves a server on the model's guard.
  const guard = await session.host.guard();
  const chat: Chat = {
    session,
    model,
    tools,
    record,
    ...createConversation(session, model, tools, maxSteps, record),
  };
  const commands = chatCommands(chat, registry);
  if (options.once !== undefined) return chatOnce(chat, options.once);
  // On a terminal, chat is the console (mcpx shell) with a model: plain text goes to the agent.
  if (io.interactive && io.terminal) {
    const terminal = { terminal: io.terminal, ...(io.onInterrupt ? { onInterrupt: io.onInterrupt } : {}) };
    return chatConsole(chat, commands, { registry, guard, terminal, level });
  }
  return chatLines(chat, commands, stdin);
}

/** The model `--model`, `--base-url` and the environment name, and the steps a turn may take. */
function chatModel(options: ChatOptions, io: CliDoor['io']): { model: ChatModel; maxSteps: number } {
  const maxSteps = options.maxSteps === undefined ? 10 : Number(options.maxSteps);
  if (!Number.isInteger(maxSteps) || maxSteps < 1)
    throw usageError(`--max-steps takes a positive integer, not '${options.maxSteps}'`);
  const baseUrl = options.baseUrl ?? io.env.OPENAI_BASE_URL;
  // OpenAI itself refuses every request without a key: say so before starting servers or asking anything.
  // A --base-url (a local model) may need none.
  if (baseUrl === undefined && !io.env.OPENAI_API_KEY) throw missingKey();
  const model = openAICompatibleModel({
    baseUrl: baseUrl ?? DEFAULT_BASE_URL,
    model: options.model ?? io.env.MCPX_MODEL ?? 'gpt-4o-mini',
    ...(io.env.OPENAI_API_KEY ? { apiKey: io.env.OPENAI_API_KEY } : {}),
  });
  return { model, maxSteps };
}

type ChatRecord = ReturnType<typeof createChatJsonRecorder>;

/** Each server that is not there, or offers no tools, told to the person (and to `--json`'s record). */
function noticeUnavailable(
  session: CliContext,
  registry: ShellOptions['registry'],
  record?: ChatRecord,
): void {
  for (const status of registry.list()) {
    if (status.error) {
      session.notice(forTerminal(`${status.name}: not available — ${status.error.message}`));
      record?.addError(status.error);
    } else if (status.listingError) {
      session.notice(forTerminal(`${status.name}: no tools offered — ${status.listingError.message}`));
      record?.addError(status.listingError);
    }
  }
}

/** The conversation with the model: its history, and a turn asked and its answer printed. */
interface Conversation {
  readonly history: ChatCompletionMessageParam[];
  /** A model turn on `text`, or on the conversation as it stands (a prompt just put into it). */
  ask(text: string | undefined, signal?: AbortSignal): Promise<string>;
  /** The turn's answer on stdout (only its end of line when it streamed in). */
  print(answer: string): void;
  /** A turn asked and printed; one that fails leaves the conversation as it was before it. */
  answer(text: string | undefined, signal: AbortSignal): Promise<void>;
}

/** One chat's pieces, as its commands and its three ways of running (once, console, lines) share them. */
interface Chat extends Conversation {
  readonly session: CliContext;
  readonly model: ChatModel;
  readonly tools: AgentToolSet;
  readonly record: ChatRecord | undefined;
}

function createConversation(
  session: CliContext,
  model: ChatModel,
  tools: AgentToolSet,
  maxSteps: number,
  record: ChatRecord | undefined,
): Conversation {
  const { io } = session;
  const announceMode = modeAnnouncer(session, tools);
  announceMode();
  const history: ChatCompletionMessageParam[] = [{ role: 'system', content: SYSTEM_PROMPT }];
  // On a terminal the answer streams in as the model writes it; a script gets the final answer whole.
  let streamed = false;
  const links: Promise<void>[] = [];
  const ask = (text: string | undefined, signal: AbortSignal = io.signal) => {
    streamed = false;
    announceMode();
    const turnOptions: AgentTurnOptions = {
      maxSteps,
      signal,
      ...(io.stdoutIsTTY && !record
        ? {
            onText: (delta: string) => {
              streamed = true;
              io.stdout.write(forTerminal(delta));
            },
          }
        : {}),
      onEvent: (event) => {
        record?.onEvent(event);
        if (event.type === 'tool-call') session.notice(`→ ${event.name} ${preview(event.arguments)}`);
        if (event.type === 'tool-result') {
          session.notice(`${event.isError ? '✗' : '←'} ${event.name}: ${preview(event.text)}`);
          const routed = tools.catalog.find((t) => t.name === event.name);
          // A tool with an MCP App: the link that opens it with this call's input and result.
          if (routed?.source.guarded && event.result)
            links.push(
              tellAppLink(session, routed.source.id, routed.tool, {
                args: argumentsOf(event.arguments),
                result: event.result,
              }).catch(() => {}),
            );
        }
      },
    };
    const turn =
      text === undefined
        ? continueAgentTurn(model, tools, history, turnOptions)
        : runAgentTurn(model, tools, history, text, turnOptions);
    // The turn's App links are printed before it counts as done (and before chat may end).
    return turn.finally(() => Promise.all(links.splice(0)));
  };
  const print = (answer: string) => io.stdout.write(streamed ? say`\n` : say`${answer}\n`);
  const answer = async (text: string | undefined, signal: AbortSignal) => {
    const before = history.length;
    try {
      print(await ask(text, signal));
    } catch (error) {
      if (streamed) io.stdout.write(say`\n`);
      // A turn cut short (Ctrl-C, a failed request) may end on tool calls without their
      // results, which a model API refuses on the next turn: the conversation goes back.
      history.splice(before);
      throw error;
    }
  };
  return { history, ask, print, answer };
}

/**
 * Above the search threshold the model sees two tools instead of every schema: the person is told,
 * at the start and whenever a changed catalogue crosses the threshold either way.
 */
function modeAnnouncer(session: CliContext, tools: AgentToolSet): () => void {
  let announcedMode: AgentToolSet['mode'] = 'all';
  return () => {
    if (tools.mode === announcedMode) return;
    announcedMode = tools.mode;
    session.notice(
      tools.mode === 'search'
        ? `${plural(tools.catalog.length, 'tool')}, more than ${SEARCH_THRESHOLD}: the model finds them with ${SEARCH_TOOL} and calls them with ${CALL_TOOL}`
        : `${plural(tools.catalog.length, 'tool')}: the model is offered each of them again`,
    );
  };
}

type ChatCommands = Record<string, ChatCommand | Omit<ChatCommand, 'usage' | 'complete'>>;

/**
 * Every chat command, on a terminal (the console's extra commands) and on piped lines alike.
 * `run` resolves true when the model should answer the conversation now.
 */
function chatCommands(chat: Chat, registry: ShellOptions['registry']): ChatCommands {
  const { session, tools, history } = chat;
  const showTools = (): void => {
    const own = [LIST_RESOURCES_TOOL, READ_RESOURCE_TOOL, LOAD_SKILL_TOOL, READ_SKILL_FILE_TOOL];
    const pair = tools.tools.filter((t) => own.includes(t.name));
    const lines = [...tools.catalog, ...pair].map((t) => `${t.name}  ${t.description}`);
    session.io.stdout.write(forTerminal(`${lines.join('\n') || '(no tools)'}\n`));
  };
  return {
    tools: {
      help: 'the tools the model is offered',
      run: async () => {
        showTools();
        return false;
      },
    },
    clear: {
      help: 'forget the conversation so far',
      run: async () => {
        history.splice(1);
        return false;
      },
    },
    ...chatContextCommands({ session, registry, agentId: 'chat', history }),
  };
}

/** `--once`: one question, its answer (or `--json`'s object, whatever happened) on stdout. */
async function chatOnce(chat: Chat, question: string): Promise<number> {
  const { session, record, tools } = chat;
  const { io } = session;
  try {
    if (!record) {
      chat.print(await chat.ask(question));
      return ExitCode.Ok;
    }
    try {
      io.stdout.write(toJson(record.result(await chat.ask(question))));
      return ExitCode.Ok;
    } catch (error) {
      // The object is printed whatever happened; the error also goes to stderr as usual.
      record.addError(toMcpxError(error));
      io.stdout.write(toJson(record.result(null)));
      throw error;
    }
  } finally {
    tools.close();
  }
}

/** On a terminal: the console (mcpx shell) with the model, to which plain text goes. */
async function chatConsole(
  chat: Chat,
  commands: ChatCommands,
  shell: Pick<ShellOptions, 'registry' | 'guard' | 'terminal'> & { readonly level: string },
): Promise<number> {
  const { session, model, tools, history } = chat;
  try {
    await runShell({
      session,
      registry: shell.registry,
      guard: shell.guard,
      agentId: 'chat',
      terminal: shell.terminal,
      banner: say`mcpx chat — ${model.model}, ${plural(tools.catalog.length, 'tool')}, permission ${shell.level}. Type to the model; /help for commands (/mcp, @server …), Ctrl-D leaves.`,
      onText: (text, signal) => chat.answer(text, signal),
      extra: Object.fromEntries(
        Object.entries(commands).map(([name, command]) => [
          name,
          {
            ...command,
            run: async (args: readonly string[], signal: AbortSignal) => {
              const before = history.length;
              if (!(await command.run(args, signal))) return;
              // A prompt whose model turn fails leaves the conversation as it was before it.
              await chat.answer(undefined, signal).catch((error: unknown) => {
                history.splice(before);
                throw error;
              });
            },
          },
        ]),
      ),
    });
  } finally {
    tools.close();
  }
  return ExitCode.Ok;
}

/** Piped lines: each a turn (or a chat command), until `/exit` or the end of input. */
async function chatLines(chat: Chat, commands: ChatCommands, stdin: NodeJS.ReadableStream): Promise<number> {
  const { session, tools } = chat;
  const { io } = session;
  const lines = createInterface({ input: stdin, terminal: false });
  try {
    for await (const line of lines) {
      if (line.trim() === '/exit') break;
      const text = line.trim();
      if (!text) continue;
      let turn: string | undefined = text;
      const command = commandOf(text, commands);
      if (command) {
        try {
          if (!(await command.run(io.signal))) continue;
          turn = undefined;
        } catch (error) {
          if (io.signal.aborted) throw error;
          // A command that fails (an unknown server, a missing argument) is told; the chat goes on.
          writeError(session, toMcpxError(error));
          continue;
        }
      }
      try {
        chat.print(await chat.ask(turn));
      } catch (error) {
        // Ctrl-C, as a signal or as a key at a menu, ends the chat (exit 130).
        if (io.signal.aborted || (error instanceof McpxError && error.code === ErrorCode.Cancelled))
          throw error;
        // A model or network failure ends this turn, not the chat.
        writeError(
          session,
          error instanceof McpxError ? error : new McpxError(ErrorCode.Internal, String(error)),
        );
        return ExitCode.Unreachable;
      }
    }
  } finally {
    lines.close();
    tools.close();
  }
  return ExitCode.Ok;
}

/** A line naming one of the chat's commands, ready to run; anything else is for the model. */
function commandOf(
  text: string,
  commands: Readonly<Record<string, Pick<ChatCommand, 'run'>>>,
): { run(signal: AbortSignal): Promise<boolean> } | undefined {
  if (!text.startsWith('/')) return undefined;
  const name = /^\/(\S+)/.exec(text)?.[1] ?? '';
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) return undefined;
  return {
    run: (signal) => {
      const parsed = parseLine(text);
      return command.run(parsed.kind === 'command' ? parsed.args : [], signal);
    },
  };
}

function missingKey(): McpxError {
  return new McpxError(
    ErrorCode.ModelKeyMissing,
    `mcpx chat talks to OpenAI (${DEFAULT_BASE_URL}) by default, and OPENAI_API_KEY is not set`,
    {
      causes: ['OpenAI answers every request without an API key with 401'],
      fixes: [
        'set your key (export OPENAI_API_KEY=sk-…), or give --base-url for another OpenAI-compatible endpoint: a local model needs no key (e.g. --base-url http://127.0.0.1:11434/v1)',
      ],
    },
  );
}

function preview(text: string): string {
  const clean = forTerminal(text).replace(/\s+/g, ' ');
  return clean.length > 160 ? `${clean.slice(0, 160)}…` : clean;
}

/** The model's arguments as an object (what the call was made with), or none when they are not one. */
function argumentsOf(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
