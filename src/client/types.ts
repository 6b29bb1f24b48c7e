import type {
  CallToolResult,
  ClientCapabilities,
  CompleteResult,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/client';
import type {
  DirectoryResource,
  Skill,
  SkillCacheScope,
  SkillFile,
  SkillListing,
} from '@modelcontextprotocol/client/ext/skills';
import type { ServerConfig } from '../config/index.js';
import type { CallCancel } from './call-cancel.js';
import type { ResourceSubscription } from './subscriptions.js';
import type { TaskStatusEvent } from './tasks.js';

export type { ResourceSubscription, SubscriptionEnd } from './subscriptions.js';
export type { TaskStatusEvent } from './tasks.js';

/** A log message a server sent (`notifications/message`). */
export interface ServerLogEvent {
  readonly server: string;
  readonly level: LoggingLevel;
  readonly logger?: string;
  readonly data: unknown;
}

/** A progress notification for one in-flight request. */
export interface ProgressEvent {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** What every request to a server takes: cancellation and a timeout of its own. */
export interface RequestControl {
  /** Cancels the request; the server is sent `notifications/cancelled`. */
  readonly signal?: AbortSignal;
  /**
   * `signal` belongs to this request alone (a gateway client's request): the SDK listens on
   * it directly. Without this, each request gets a child signal fed by one listener on
   * `signal`, since a signal many requests share (a CLI's Ctrl-C) would otherwise collect a
   * listener per request.
   */
  readonly ownSignal?: boolean;
  /**
   * Cancels the request, as `signal` does, for a caller that makes thousands of requests and
   * cancels almost none (the gateway's fast path): no `AbortSignal` is made unless the request
   * needs one. Instead of `signal`.
   * @internal
   */
  readonly cancel?: CallCancel;
  /** Per-request timeout in ms; progress notifications reset it. */
  readonly timeoutMs?: number;
  /**
   * 2026-07-28 manual multi-round-trip (tools/call, prompts/get, resources/read): a server's
   * `input_required` result is returned as it is (test it with `isInputRequiredResult`)
   * instead of being answered by this connection's own handlers, so the caller can take
   * the questions to whoever should answer them. No effect on a 2025 connection.
   */
  readonly manualInput?: boolean;
  /** The retry of a round: the answers and the server's `requestState`, echoed byte for byte. */
  readonly inputRound?: InputRound;
  /**
   * Which questions (sampling, elicitation, roots) whoever answers this request's
   * `input_required` can take (a gateway's client): on 2026-07-28 the request declares
   * these rather than everything this connection could answer, so the server asks
   * only what will be answered; likewise the extensions it supports (MCP Apps), of those the
   * connection declared. No effect on a 2025 connection.
   */
  readonly inputCapabilities?: Pick<ClientCapabilities, 'sampling' | 'elicitation' | 'roots' | 'extensions'>;
  /**
   * `false`: this request asks for no log messages, though the connection asked for a level
   * (a gateway's call whose logs nobody would read). On 2026-07-28 the level rides on each
   * request, and a server with something to log answers an event stream instead of one JSON
   * body. No effect on a 2025 connection, whose level is set once for the session.
   */
  readonly logs?: boolean;
  /**
   * W3C trace context (`traceparent`, `tracestate`, `baggage`) to carry in the request's
   * `_meta` as it is: an inbound request's, passed on by a gateway that does not trace (W3C
   * Trace Context's rule for a vendor that does not take part). When this process traces, the
   * request's own span's context replaces it whole (`trace-requests.ts`).
   */
  readonly traceContext?: Readonly<Record<string, string>>;
}

/** What a 2026-07-28 retry carries after an `input_required` result. */
export interface InputRound {
  readonly inputResponses?: Record<string, unknown>;
  readonly requestState?: string;
}

/** How one tool call is made: cancellation, timeouts, and progress reports. */
export interface CallToolOptions extends RequestControl {
  readonly onProgress?: (event: ProgressEvent) => void;
  /**
   * Send the call as a plain line beside the SDK client where the connection allows it
   * (a local stdio server on 2025-11-25, a tool that needs no task and no output check;
   * see `client/relayed-call.ts`), else through the SDK client as always. The result
   * and every failure are the same either way; it only costs less.
   */
  readonly relay?: boolean;
  /**
   * Status of a tool that runs as a task (`execution.taskSupport: "required"`): called
   * when the task is created and whenever its status or message changes.
   */
  readonly onTaskStatus?: (event: TaskStatusEvent) => void;
}

/**
 * One server's skills (the SEP-2640 extension), over the SDK's `SkillsClient`: each request
 * with the connection's timeout, cancellation and errors. A file that fails verification
 * (unlisted, size, digest, `SKILL.md`'s frontmatter) is refused with SKILL_REFUSED.
 */
export interface ServerSkills {
  /** The server declared the extension; when not, nothing is asked of it. */
  readonly supported: boolean;
  /** The whole listing (every page), invalid entries returned apart in `invalid`; no file is read. */
  list(options?: RequestControl): Promise<SkillListing>;
  /** One file of `skill` (default its `SKILL.md`), verified against the entry. */
  read(skill: Skill, ref?: string, options?: RequestControl): Promise<SkillFile>;
  /** One skill by its `SKILL.md` URI (`skills/get`), listed or not; an invalid entry or another skill throws. */
  get(uri: string, options?: RequestControl): Promise<Skill>;
  /** The server serves `resources/directory/read`. */
  readonly directoryRead: boolean;
  /** A skill directory's direct children (`resources/directory/read`, every page). */
  readDirectory(
    uri: string,
    options?: RequestControl,
  ): Promise<{ resources: DirectoryResource[]; cacheScope?: SkillCacheScope }>;
}

/** Which protocol generation a connection speaks. */
export type ProtocolEra = 'modern' | 'legacy';

/**
 * One live connection to one MCP server. Every method maps SDK failures to
 * McpxError with the server's name and the real cause (a crash with its exit
 * code and stderr, a cancellation, a timeout).
 */
export interface ServerConnection {
  readonly server: ServerConfig;
  readonly era: ProtocolEra;
  readonly protocolVersion: string | undefined;
  readonly serverInfo: Implementation | undefined;
  readonly capabilities: ServerCapabilities;
  readonly instructions: string | undefined;
  /** Milliseconds the connect (spawn + handshake) took. */
  readonly connectMs: number;
  /** True once the transport has closed, for whatever reason. */
  readonly closed: boolean;
  /** Every page, in server order. Empty when the server has no such capability. */
  listTools(options?: RequestControl): Promise<Tool[]>;
  listResources(options?: RequestControl): Promise<Resource[]>;
  listResourceTemplates(options?: RequestControl): Promise<ResourceTemplateType[]>;
  listPrompts(options?: RequestControl): Promise<Prompt[]>;
  /**
   * Calls a tool. A tool the server runs only as a task (`execution.taskSupport:
   * "required"`) is created as one, followed to its end and its result fetched; an abort
   * sends `tasks/cancel`. Other tools, `"optional"` included, are called directly.
   */
  callTool(name: string, args: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolResult>;
  readResource(uri: string, options?: RequestControl): Promise<ReadResourceResult>;
  /**
   * Be told when a resource changes: `onUpdated` runs when `notifications/resources/updated`
   * names `uri` (read it again to see what changed); repeats are coalesced: at once, then at
   * most once every 500 ms while they keep coming, and always after the last. 2025-11-25 sends `resources/subscribe`; 2026-07-28 opens a `subscriptions/listen`
   * stream. Fails with SERVER_REJECTED when the server offers no subscriptions.
   */
  subscribeResource(
    uri: string,
    onUpdated: (uri: string) => void,
    options?: RequestControl,
  ): Promise<ResourceSubscription>;
  getPrompt(name: string, args: Record<string, string>, options?: RequestControl): Promise<GetPromptResult>;
  complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    options?: RequestControl,
  ): Promise<CompleteResult>;
  /** The server's skills (SEP-2640). */
  readonly skills: ServerSkills;
  /** Round-trip latency in ms. */
  ping(options?: RequestControl): Promise<number>;
  setLoggingLevel(level: LoggingLevel, options?: RequestControl): Promise<void>;
  /** Subscribe to the transport closing (crash, exit, close()). Returns an unsubscribe function. */
  onClose(listener: (reason: Error | undefined) => void): () => void;
  /** Ends the connection and the server's whole process tree. Idempotent. */
  close(): Promise<void>;
  /** `close()`, so that `await using connection = await host.connect(…)` ends it with the block. */
  [Symbol.asyncDispose](): Promise<void>;
}
