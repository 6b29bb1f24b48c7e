/**
 * A raw 2025-11-25 Streamable HTTP client, for tests that must control the SSE
 * stream itself (cut it at a chosen event, resume it with Last-Event-ID), which
 * the SDK client does on its own terms.
 */
import { setTimeout as delay } from 'node:timers/promises';

export const LEGACY_VERSION = '2025-11-25';

export interface SseEvent {
  readonly id?: string;
  readonly retry?: number;
  readonly data: string;
}

export interface RawMessage {
  readonly id?: number;
  readonly method?: string;
  readonly params?: { readonly progress?: number };
  readonly result?: unknown;
}

/** The events of an SSE body as they arrive (a minimal parser: `id`, `retry`, `data` fields). */
export async function* sseEvents(response: Response): AsyncGenerator<SseEvent> {
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream())
    .getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id: string | undefined;
      let retry: number | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        const [field, ...rest] = line.split(':');
        const text = rest.join(':').replace(/^ /, '');
        if (field === 'id') id = text;
        else if (field === 'retry') retry = Number(text);
        else if (field === 'data') data.push(text);
      }
      yield {
        ...(id !== undefined ? { id } : {}),
        ...(retry !== undefined ? { retry } : {}),
        data: data.join('\n'),
      };
    }
  }
}

/** The JSON-RPC message of an event; undefined for a priming event (no data). */
export const messageOf = (event: SseEvent): RawMessage | undefined =>
  event.data.trim() === '' ? undefined : (JSON.parse(event.data) as RawMessage);

/** Headers of a request in a session (`extra` may add e.g. authorization or last-event-id). */
export function sessionHeaders(session: string | undefined, extra: Record<string, string> = {}) {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': LEGACY_VERSION,
    ...(session ? { 'mcp-session-id': session } : {}),
    ...extra,
  };
}

/** POST a `tools/call` in a session; its response is the call's SSE stream. */
export function postToolCall(
  url: string,
  session: string,
  call: {
    readonly id: number;
    readonly name: string;
    readonly arguments: Record<string, unknown>;
    readonly progressToken?: string | number;
    readonly headers?: Record<string, string>;
    readonly signal?: AbortSignal;
  },
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: sessionHeaders(session, call.headers),
    ...(call.signal ? { signal: call.signal } : {}),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: call.id,
      method: 'tools/call',
      params: {
        name: call.name,
        arguments: call.arguments,
        ...(call.progressToken === undefined ? {} : { _meta: { progressToken: call.progressToken } }),
      },
    }),
  });
}

/** GET a session's stream again from `lastEventId` on (a resume with Last-Event-ID). */
export function resumeStream(
  url: string,
  session: string,
  lastEventId: string,
  extra: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'GET',
    headers: sessionHeaders(session, { ...extra, accept: 'text/event-stream', 'last-event-id': lastEventId }),
  });
}

/** Open a session (initialize, initialized); returns its id, or throws with the status. */
export async function openRawSession(url: string, extra: Record<string, string> = {}): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: sessionHeaders(undefined, extra),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LEGACY_VERSION,
        capabilities: {},
        clientInfo: { name: 'raw', version: '0' },
      },
    }),
  });
  const session = response.headers.get('mcp-session-id');
  await response.arrayBuffer();
  if (response.status !== 200 || !session) throw new Error(`initialize answered ${response.status}`);
  const initialized = await fetch(url, {
    method: 'POST',
    headers: sessionHeaders(session, extra),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  if (initialized.status !== 202) throw new Error(`initialized answered ${initialized.status}`);
  return session;
}

export interface CutCall {
  /** Every progress value received, before the cut and after the resume, in order. */
  readonly progress: number[];
  readonly result: RawMessage | undefined;
  /** The `retry` the priming event asked for. */
  readonly retry: number | undefined;
  readonly resumeStatus: number;
}

/**
 * Call `tool` with a progress token, cut the connection after `cutAfter`
 * progress notifications (as a proxy or a sleeping laptop would), wait
 * `pauseMs` while the call runs on, then resume with Last-Event-ID and read
 * to the result.
 */
export async function callCutAndResume(options: {
  url: string;
  session: string;
  tool: string;
  arguments: Record<string, unknown>;
  cutAfter: number;
  pauseMs: number;
  headers?: Record<string, string>;
}): Promise<CutCall> {
  const extra = options.headers ?? {};
  const cut = new AbortController();
  const call = await postToolCall(options.url, options.session, {
    id: 7,
    name: options.tool,
    arguments: options.arguments,
    progressToken: 'p',
    headers: extra,
    signal: cut.signal,
  });
  const progress: number[] = [];
  let lastId: string | undefined;
  let retry: number | undefined;
  const events = sseEvents(call);
  for await (const event of events) {
    retry ??= event.retry;
    if (event.id) lastId = event.id;
    const message = messageOf(event);
    if (message?.method === 'notifications/progress') progress.push(message.params?.progress as number);
    if (progress.length === options.cutAfter) break;
  }
  cut.abort();
  await events.return(undefined).catch(() => {});
  if (lastId === undefined) throw new Error('the stream carried no event id: nothing to resume from');
  await delay(options.pauseMs);

  const resumed = await resumeStream(options.url, options.session, lastId, extra);
  let result: RawMessage | undefined;
  if (resumed.status === 200)
    for await (const event of sseEvents(resumed)) {
      const message = messageOf(event);
      if (message?.method === 'notifications/progress') progress.push(message.params?.progress as number);
      if (message?.id === 7) {
        result = message;
        break;
      }
    }
  return { progress, result, retry, resumeStatus: resumed.status };
}
