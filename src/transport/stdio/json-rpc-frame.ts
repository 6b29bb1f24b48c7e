import type { JSONRPCMessage } from '@modelcontextprotocol/client';

const isId = (value: unknown): boolean =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The framing check for one parsed stdout line: is it a JSON-RPC 2.0
 * request, notification, result or error? The protocol layer validates the
 * content of each message against its schema later; this only decides what
 * is a message at all. Kept free of the SDK (and its schema library) so the
 * transport loads fast and a server can be spawned before the SDK is loaded.
 */
export function asJsonRpcMessage(value: unknown): JSONRPCMessage | undefined {
  if (!isObject(value) || value.jsonrpc !== '2.0') return undefined;
  if (typeof value.method === 'string') {
    if ('params' in value && value.params !== undefined && !isObject(value.params)) return undefined;
    if ('id' in value && !isId(value.id)) return undefined;
    return value as unknown as JSONRPCMessage;
  }
  if (!isId(value.id) && !(value.id === null && 'error' in value)) return undefined;
  const hasResult = 'result' in value;
  const hasError = 'error' in value;
  if (hasResult === hasError) return undefined;
  if (hasResult) return isObject(value.result) ? (value as unknown as JSONRPCMessage) : undefined;
  const error = value.error;
  if (!isObject(error) || typeof error.code !== 'number' || typeof error.message !== 'string')
    return undefined;
  return value as unknown as JSONRPCMessage;
}

/**
 * Ids a line relay gives the requests it sends on a pipe an SDK client also uses
 * (`client/relayed-call.ts`). The SDK numbers its requests; a string with this
 * prefix can never be one of them, so each reply finds its way back.
 */
export const RELAY_ID_PREFIX = 'mcpx-relay:';

/** Whether `id` is a line relay's (see {@link RELAY_ID_PREFIX}). */
export function isRelayId(id: unknown): id is string {
  return typeof id === 'string' && id.startsWith(RELAY_ID_PREFIX);
}
