/**
 * The client side of MCP that needs the host: roots (which directories the
 * servers may work in), sampling (a server asks the host's model) and
 * elicitation (a server asks the user). Each capability is declared to a
 * server only when the host provides a handler for it.
 */

import { pathToFileURL } from 'node:url';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  CreateMessageResultWithTools,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitResult,
  Root,
} from '@modelcontextprotocol/client';
import { appsClientCapability } from './mcp-apps.js';

/** The folders (roots) a server may work in, and word when they change. */
export interface RootsProvider {
  /** May be asked of someone else (the gateway asks its calling client). */
  list(): readonly Root[] | Promise<readonly Root[]>;
  /** Called when the list changes; returns an unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

/** Roots the host can change; every connected server is told (`notifications/roots/list_changed`). */
export function createRoots(initial: readonly Root[]): RootsProvider & { set(roots: readonly Root[]): void } {
  let roots = [...initial];
  const listeners = new Set<() => void>();
  return {
    list: () => roots,
    set(next) {
      roots = [...next];
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The default roots: the working directory, as a `file://` URI. */
export function rootsForDirectories(directories: readonly string[]): Root[] {
  return directories.map((dir) => ({ uri: pathToFileURL(dir).href, name: dir }));
}

/** Answers a server's sampling requests (a model completion asked for by the server), within a token cap. */
export interface SamplingHandler {
  /** Asks the person first (the host's consent), then the model; a refusal throws (see `samplingRefused`). */
  createMessage(
    params: CreateMessageRequestParams,
    options: { signal: AbortSignal },
  ): Promise<CreateMessageResult | CreateMessageResultWithTools>;
  /** The most tokens a server may ask for, whatever it requests. */
  readonly maxTokens?: number;
  /**
   * The model behind it takes the request's `tools` and `toolChoice` and can
   * answer with `tool_use` (SEP-1577): declared to servers as `sampling.tools`.
   */
  readonly tools?: boolean;
}

/** Answers a server's elicitation requests: a form filled in, or a URL shown; each mode is declared only when its handler exists. */
export interface ElicitationHandlers {
  /** Form mode: a flat object of primitive fields; answer accept (with content), decline or cancel. */
  form?(params: ElicitRequestFormParams, options: { signal: AbortSignal }): Promise<ElicitResult>;
  /** URL mode: show the URL and ask; never open it without consent. */
  url?(params: ElicitRequestURLParams, options: { signal: AbortSignal }): Promise<ElicitResult>;
}

/** What a host offers one server (each capability is declared only when its handler is here): roots, sampling, elicitation. */
export interface ClientFeatures {
  readonly roots?: RootsProvider;
  readonly sampling?: SamplingHandler;
  readonly elicitation?: ElicitationHandlers;
  /**
   * MCP Apps (`mcp-apps.ts`) reach someone who can show them: declared to the server as the
   * `io.modelcontextprotocol/ui` extension. Only a front end that passes Apps on (the gateway)
   * says so: a server told it may shape its tools for Apps.
   */
  readonly apps?: boolean;
}

/** Capabilities for exactly the handlers that exist. */
export function capabilitiesFor(features: ClientFeatures | undefined): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
  if (features?.roots) capabilities.roots = { listChanged: true };
  if (features?.sampling) capabilities.sampling = features.sampling.tools ? { tools: {} } : {};
  const { form, url } = features?.elicitation ?? {};
  if (form || url) {
    capabilities.elicitation = {
      ...(form ? { form: { applyDefaults: true } } : {}),
      ...(url ? { url: {} } : {}),
    } as ClientCapabilities['elicitation'];
  }
  if (features?.apps) capabilities.extensions = appsClientCapability();
  return capabilities;
}

/**
 * An answer to a server's request that the host refuses, sent as a JSON-RPC
 * error with this code (the SDK sends the numeric `code` of whatever a
 * handler throws). Not the SDK's `ProtocolError`, so that building one does
 * not load the SDK.
 */
export class RequestRefused extends Error {
  override readonly name = 'RequestRefused';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The user said no: the error the spec prescribes for a refused sampling request (code -1). */
export function samplingRefused(message = 'the user declined the sampling request'): RequestRefused {
  return new RequestRefused(-1, message);
}

/** A sampling request with its `maxTokens` capped by the host's limit. */
export function capSampling(
  params: CreateMessageRequestParams,
  limit: number | undefined,
): CreateMessageRequestParams {
  if (limit === undefined || params.maxTokens <= limit) return params;
  return { ...params, maxTokens: limit };
}

type FieldSchema = { type?: string; default?: unknown; enum?: unknown[] };

/** JSON-RPC's "Invalid params". */
const INVALID_PARAMS = -32602;

/**
 * The spec allows form elicitation only for a flat object of primitive
 * fields (string, number, integer, boolean, enums). Anything else is refused
 * before the user is asked.
 */
export function checkFormSchema(schema: ElicitRequestFormParams['requestedSchema']): void {
  const properties = (schema?.properties ?? {}) as Record<string, FieldSchema>;
  for (const [name, field] of Object.entries(properties)) {
    const type = field?.type;
    const primitive = type === 'string' || type === 'number' || type === 'integer' || type === 'boolean';
    const multiSelect = type === 'array';
    if (!primitive && !multiSelect) {
      throw new RequestRefused(
        INVALID_PARAMS,
        `elicitation field '${name}' is not a primitive (type ${String(type)})`,
      );
    }
  }
}

/** Fields the user left out get the schema's defaults (SEP-1034), whatever the SDK does. */
export function applyFormDefaults(
  schema: ElicitRequestFormParams['requestedSchema'],
  content: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const filled: Record<string, unknown> = { ...(content ?? {}) };
  for (const [name, field] of Object.entries((schema?.properties ?? {}) as Record<string, FieldSchema>)) {
    if (filled[name] === undefined && field?.default !== undefined) filled[name] = field.default;
  }
  return filled;
}

/** A URL a server asks the user to visit: https, or http only on loopback. */
export function urlElicitationProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'it is not a valid URL';
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  if (parsed.protocol === 'https:' || (parsed.protocol === 'http:' && loopback)) return undefined;
  return `only https URLs (or http on this machine) may be shown, not ${parsed.protocol}//${parsed.hostname}`;
}
