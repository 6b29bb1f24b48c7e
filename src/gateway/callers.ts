/**
 * Who is calling each upstream server right now: the downstream calls in
 * flight per server. A request an upstream server makes of its client in the
 * middle of a call (sampling, elicitation) carries no link to that call on the
 * wire, so it goes to the one client with a call in flight on that server; with
 * several, nobody can tell whose call asked, and it is refused rather than shown
 * to a client it may not belong to.
 */
export class Callers<C> {
  readonly #byServer = new Map<string, Map<symbol, { client: string; call: C }>>();

  /** Record a call; the returned function ends it. */
  begin(server: string, client: string, call: C): () => void {
    const key = Symbol(client);
    const calls = this.#byServer.get(server) ?? new Map<symbol, { client: string; call: C }>();
    this.#byServer.set(server, calls);
    calls.set(key, { client, call });
    return () => {
      calls.delete(key);
      if (calls.size === 0 && this.#byServer.get(server) === calls) this.#byServer.delete(server);
    };
  }

  /** The latest call on `server` when every call in flight there is one client's; else undefined. */
  soleCaller(server: string): C | undefined {
    const calls = [...(this.#byServer.get(server)?.values() ?? [])];
    const clients = new Set(calls.map((c) => c.client));
    return clients.size === 1 ? calls.at(-1)?.call : undefined;
  }

  /** Calls in flight, all servers together. */
  get size(): number {
    let n = 0;
    for (const calls of this.#byServer.values()) n += calls.size;
    return n;
  }
}
