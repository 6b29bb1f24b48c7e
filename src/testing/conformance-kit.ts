/**
 * What the conformance backend's modules share: the per-process state (stateless HTTP makes one
 * server instance per request, so nothing that must outlive a request may live in one), the
 * capabilities the client declared, and two result builders.
 */
import { randomBytes } from 'node:crypto';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  createRequestStateCodec,
  type InputRequest,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { envelopeValue } from '../gateway/server-kit.js';

/** The name the backend reports in `serverInfo`. */
export const CONFORMANCE_BACKEND_NAME = 'mcpx-conformance-backend';

/** The shared state of one backend process: stateless HTTP makes one server per request. */
export interface ConformanceState {
  /** URIs subscribed to by 2025 sessions. */
  readonly subscriptions: Set<string>;
  /** Seals `requestState` (HMAC): a tampered state is refused with -32602 before any handler runs. */
  readonly codec: ReturnType<typeof createRequestStateCodec<Record<string, unknown>>>;
  /** Called by `test_trigger_*_change`: the entry fans the change out (listen streams, sessions). */
  onListChanged?: (kind: 'tools' | 'prompts') => void;
}

/** A fresh state with its own HMAC key (one process serves every round of a flow). */
export function createConformanceState(): ConformanceState {
  return {
    subscriptions: new Set(),
    codec: createRequestStateCodec<Record<string, unknown>>({ key: randomBytes(32) }),
  };
}

/** What the client declared: per request on 2026-07-28 (its envelope), at `initialize` on 2025. */
export function clientCapabilities(ctx: ServerContext, server: McpServer): ClientCapabilities {
  const declared = envelopeValue(ctx, CLIENT_CAPABILITIES_META_KEY) as ClientCapabilities | undefined;
  return declared ?? server.server.getClientCapabilities() ?? {};
}

export const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/** A form elicitation with a hand-written schema (inputRequired.elicit would rewrite it). */
export const elicitationRequest = (message: string, requestedSchema: Record<string, unknown>): InputRequest =>
  ({ method: 'elicitation/create', params: { message, requestedSchema } }) as InputRequest;
