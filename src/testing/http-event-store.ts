import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

/** An in-memory EventStore: lets a client resume a broken SSE stream with Last-Event-ID. */
export class MemoryEventStore implements EventStore {
  #events: { id: string; streamId: string; message: JSONRPCMessage }[] = [];
  #next = 0;

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${++this.#next}`;
    this.#events.push({ id, streamId, message });
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#events.find((e) => e.id === eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const index = this.#events.findIndex((e) => e.id === lastEventId);
    const streamId = this.#events[index]?.streamId ?? '';
    for (const event of this.#events.slice(index + 1)) {
      // The priming event is stored as `{}`; there is nothing to replay for it.
      if (event.streamId === streamId && 'jsonrpc' in event.message) await send(event.id, event.message);
    }
    return streamId;
  }
}
