import { type LoggingLevel, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { SharedSessions } from './shared-sessions.js';

/**
 * What a 2025-11-25 client set in its session that the session's server holds in memory: the
 * level it asked logs at (`logging/setLevel`) and the resources it subscribed to. In a fleet they
 * are kept with the session (`shared-sessions.ts`) and set again, through the session server's own
 * handlers, on the instance that continues it (`settingsRequests`).
 */
export interface SessionSettings {
  readonly logLevel?: LoggingLevel;
  readonly subscriptions: readonly string[];
}

/** One request that changes a session's settings. */
export type SettingChange =
  | { readonly logLevel: LoggingLevel }
  | { readonly subscribe: string }
  | { readonly unsubscribe: string };

/** Subscriptions one session carries across the fleet; a subscribe past them is refused there. */
export const MAX_KEPT_SUBSCRIPTIONS = 256;
/** A resource URI longer than this is not kept (nor believed when read back). */
export const MAX_KEPT_URI_CHARS = 2_048;

const LEVELS: readonly string[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] satisfies LoggingLevel[];

/** A level as a client or the store gave it, when it is one. */
export function loggingLevelOf(value: unknown): LoggingLevel | undefined {
  return typeof value === 'string' && LEVELS.includes(value) ? (value as LoggingLevel) : undefined;
}

/** A URI to keep or believe: a string, not empty, not over {@link MAX_KEPT_URI_CHARS}. */
export function keptUri(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_KEPT_URI_CHARS
    ? value
    : undefined;
}

/** The setting a request (a parsed 2025-11-25 body) changes, if it is one that does. */
export function settingChangeOf(message: unknown): SettingChange | undefined {
  if (!message || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const { method, params } = message as { method?: unknown; params?: Record<string, unknown> };
  if (method === 'logging/setLevel') {
    const logLevel = loggingLevelOf(params?.level);
    return logLevel ? { logLevel } : undefined;
  }
  if (method !== 'resources/subscribe' && method !== 'resources/unsubscribe') return undefined;
  const uri = keptUri(params?.uri);
  if (uri === undefined) return undefined;
  return method === 'resources/subscribe' ? { subscribe: uri } : { unsubscribe: uri };
}

/** The requests that set `settings` again on a session's fresh server: its level, then each subscription. */
export function settingsRequests(settings: SessionSettings): object[] {
  const requests: object[] = [];
  let id = 1;
  if (settings.logLevel)
    requests.push({
      jsonrpc: '2.0',
      id: id++,
      method: 'logging/setLevel',
      params: { level: settings.logLevel },
    });
  for (const uri of settings.subscriptions)
    requests.push({ jsonrpc: '2.0', id: id++, method: 'resources/subscribe', params: { uri } });
  return requests;
}

/**
 * In a fleet, a setting the request changes (its log level, a subscription) kept with the session
 * before the session's server applies it, so an instance continuing the session applies it too.
 * A subscription past the most a session carries is refused (a JSON-RPC error): it would not hold
 * after a failover. The store down: the setting holds on this instance only (as the session does).
 */
export async function keepSetting(
  sessions: SharedSessions,
  sessionId: string,
  parsed: unknown,
): Promise<Response | undefined> {
  const change = settingChangeOf(parsed);
  if (!change) return undefined;
  const kept = await sessions.change(sessionId, change).catch(() => 'gone' as const);
  if (kept !== 'full') return undefined;
  const error = {
    code: ProtocolErrorCode.InvalidParams,
    message: `this session already holds ${MAX_KEPT_SUBSCRIPTIONS} resource subscriptions, the most the gateway's fleet carries for one session: unsubscribe from one first`,
  };
  return Response.json({ jsonrpc: '2.0', id: (parsed as { id?: unknown }).id ?? null, error });
}
