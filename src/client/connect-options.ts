import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type { Tracer } from '@opentelemetry/api';
import type { McpxError } from '../errors/index.js';
import type { SdkDiagnostic } from '../transport/index.js';
import type { EraCache } from './era-cache.js';
import type { ClientFeatures } from './features.js';
import type { ServerLogEvent } from './types.js';

/** A transport that can also say why it closed (our stdio transport does). */
export interface ManagedTransport extends Transport {
  closeReason?(): McpxError | undefined;
  stderrTail?(): readonly string[];
  /** The transport's own account of a failure the SDK reports in its words (HTTP status, broken stream). */
  failureFor?(error: unknown): McpxError | undefined;
  /** The connect starts, with this budget: retries of a busy server must fit in it (HTTP). */
  beginConnect?(budgetMs: number): void;
  /**
   * Work before the handshake with a budget of its own — a package runner's
   * first install (stdio). Its time does not count against the connect
   * timeout; it resolves with extra time a first start may take on top.
   */
  prepare?(signal?: AbortSignal): Promise<number>;
  /**
   * A transport that relays a connection held elsewhere (the daemon's socket, which itself
   * speaks 2025-11-25) names the version that connection negotiated with the server.
   */
  readonly relayedProtocolVersion?: string;
  /**
   * A transport a line relay may send calls on beside the SDK client, whose replies it hands
   * to `onrelayreply` (`relayed-call.ts`), as a stdio server's transport does: the daemon's
   * in-process link (`daemon/in-process-link.ts`).
   */
  readonly relaysLines?: boolean;
  /** Where such a transport hands the replies to the relay's own ids (set by `relayed-call.ts`). */
  onrelayreply?: ((reply: JSONRPCMessage) => void) | undefined;
}

/** How `connectServer` connects one server: its transport, timeouts, the era cache, and the callbacks for the server's logs and list changes. */
export interface ConnectServerOptions {
  /** Builds a fresh transport; called again when a connect has to be retried. */
  readonly createTransport: () => ManagedTransport | Promise<ManagedTransport>;
  readonly connectTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  readonly eraCache?: EraCache;
  readonly onLog?: (event: ServerLogEvent) => void;
  /** The server said its tools, resources or prompts changed (either era). */
  readonly onListChanged?: (kind: ListKind) => void;
  readonly clientInfo?: { name: string; version: string };
  /** Cancels the connect attempt. */
  readonly signal?: AbortSignal;
  /** Roots, sampling and elicitation handlers; each capability is declared only when its handler exists. */
  readonly features?: ClientFeatures;
  /**
   * What the SDK would have printed with `console.*` while working for this server (it may
   * quote the server: sanitize before showing). Without a handler it is dropped: the library
   * never prints. See `sdk-diagnostics.ts`.
   */
  readonly onSdkDiagnostic?: (diagnostic: SdkDiagnostic) => void;
  /** Spans for the handshake and every request (default: the global API's, a no-op until a provider is registered). */
  readonly tracer?: Tracer;
}

/** Which of a server's lists changed: its tools, resources or prompts. */
export type ListKind = 'tools' | 'resources' | 'prompts';
