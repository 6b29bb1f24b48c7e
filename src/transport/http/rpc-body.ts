/** The bodies GuardedHttp looks into: JSON-RPC requests going out, JSON and SSE coming back. */
import { EventTooLargeError } from './sse-scanner.js';

/** What a request body holds, as far as retries, sessions and SSE replies care. */
export interface RpcInfo {
  readonly methods: readonly string[];
  /** Ids of the requests in the body: the responses an SSE reply must carry. */
  readonly requestIds: readonly (string | number)[];
  readonly isInitialize: boolean;
  readonly isInitialized: boolean;
}

export const NO_RPC: RpcInfo = { methods: [], requestIds: [], isInitialize: false, isInitialized: false };

/** The JSON-RPC methods and request ids in a POST body (a batch or one message). */
export function inspectBody(body: string): RpcInfo {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return NO_RPC;
  }
  const messages = (Array.isArray(parsed) ? parsed : [parsed]) as { method?: unknown; id?: unknown }[];
  const methods: string[] = [];
  const requestIds: (string | number)[] = [];
  for (const message of messages) {
    if (typeof message?.method !== 'string') continue;
    methods.push(message.method);
    if (typeof message.id === 'string' || typeof message.id === 'number') requestIds.push(message.id);
  }
  return {
    methods,
    requestIds,
    isInitialize: methods.includes('initialize'),
    isInitialized: methods.includes('notifications/initialized'),
  };
}

/** The id of a JSON-RPC response in an SSE `data` field, if it is one. */
export function responseId(data: string): string | number | undefined {
  if (!data.includes('"id"')) return undefined;
  try {
    const message = JSON.parse(data) as { id?: unknown; result?: unknown; error?: unknown; method?: unknown };
    if (message.method !== undefined || (message.result === undefined && message.error === undefined))
      return undefined;
    return typeof message.id === 'string' || typeof message.id === 'number' ? message.id : undefined;
  } catch {
    return undefined;
  }
}

/** `text/event-stream` from `text/event-stream; charset=utf-8`. */
export function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Let go of a response body that will not be read. */
export async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {});
}

/** The whole body, or EventTooLargeError once it passes `max` bytes (memory stays bounded). */
export async function readCapped(body: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw new EventTooLargeError(max);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
