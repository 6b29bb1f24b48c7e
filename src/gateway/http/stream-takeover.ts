import type { EventStore, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';

/** The part of the SDK transport's private state read here: its live SSE streams by stream id. */
interface LiveStreams {
  readonly _streamMapping?: Map<string, { cleanup?: () => void }>;
}

/**
 * A resume takes its stream over from the connection it replaces. The SDK
 * answers 409 to a `Last-Event-ID` whose stream still has a connection, but a
 * connection the client gave up on can look alive to the server for a long
 * time: a laptop that wakes on another network sends no FIN, and an idle SSE
 * stream writes nothing that would fail. The request comes in the session that
 * owns the stream (the event log is per session), so the old connection is
 * ended and the SDK then replays to the new one as usual.
 *
 * Call before handing a GET with `Last-Event-ID` to the session's transport.
 * There is no public way to end a stream by its id (`closeSSEStream` takes a
 * request id), so the SDK's own map of live streams is read; should a later SDK
 * rename it, nothing is ended and the client gets the SDK's own 409.
 */
export async function takeOverStream(
  transport: WebStandardStreamableHTTPServerTransport,
  store: Pick<Required<EventStore>, 'getStreamIdForEventId'>,
  lastEventId: string,
): Promise<void> {
  const streamId = await store.getStreamIdForEventId(lastEventId);
  if (streamId === undefined) return;
  (transport as unknown as LiveStreams)._streamMapping?.get(streamId)?.cleanup?.();
}
