import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { linkedPair } from '../../../src/daemon/in-process-link.js';
import { ErrorCode } from '../../../src/errors/index.js';
import { RELAY_ID_PREFIX } from '../../../src/transport/index.js';

const ping = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'ping', params: {} });
const aTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the in-process link', () => {
  it('carries a copy of each message, after send returns, in order', async () => {
    const [client, daemon] = linkedPair('s');
    const got: JSONRPCMessage[] = [];
    daemon.onmessage = (m) => got.push(m as JSONRPCMessage);
    await daemon.start();
    await client.start();
    const first = ping(1);
    const sent = client.send(first);
    // Not re-entered from send, nor heard within its turn: the peer hears it on a later one.
    expect(got).toEqual([]);
    await sent;
    await client.send(ping(2));
    await Promise.resolve();
    expect(got).toEqual([]);
    await aTurn();
    expect(got).toEqual([ping(1), ping(2)]);
    // The two ends never share an object.
    expect(got[0]).not.toBe(first);
    (first as { method: string }).method = 'changed';
    expect((got[0] as { method: string }).method).toBe('ping');
  });

  it("hands the fast path's relay messages over as they are, in the order sent", async () => {
    const [client, daemon] = linkedPair('s');
    const atDaemon: JSONRPCMessage[] = [];
    const atClient: JSONRPCMessage[] = [];
    daemon.onmessage = (m) => atDaemon.push(m as JSONRPCMessage);
    client.onrelayreply = (m) => atClient.push(m);
    await daemon.start();
    await client.start();
    const id = `${RELAY_ID_PREFIX}0`;
    const call = {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'echo', arguments: {} },
    } as const;
    const cancel = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'x' },
    } as const;
    const other = ping(3);
    await client.send(call);
    await client.send(cancel);
    await client.send(other);
    const reply = { jsonrpc: '2.0', id, result: { content: [] } } as JSONRPCMessage;
    await daemon.send(reply);
    await aTurn();
    // Built afresh by the relay and never touched again: no copy is made of them.
    expect(atDaemon[0]).toBe(call);
    expect(atDaemon[1]).toBe(cancel);
    expect(atClient).toEqual([reply]);
    expect(atClient[0]).toBe(reply);
    // Anything else is still a copy, in the order sent.
    expect(atDaemon[2]).toEqual(other);
    expect(atDaemon[2]).not.toBe(other);

    // Behind a message still on its way (a server's log, its question), a relay reply waits its turn.
    const log = {
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: 'x' },
    } as const;
    const heard: string[] = [];
    client.onmessage = () => heard.push('log');
    client.onrelayreply = () => heard.push('reply');
    await daemon.send(log);
    await daemon.send({ jsonrpc: '2.0', id: `${RELAY_ID_PREFIX}1`, result: { content: [] } });
    await Promise.resolve();
    expect(heard).toEqual([]);
    await aTurn();
    expect(heard).toEqual(['log', 'reply']);
  });

  it('hands a relay message over within the turn when nothing waits before it, never from send', async () => {
    const [client, daemon] = linkedPair('s');
    const atDaemon: JSONRPCMessage[] = [];
    daemon.onmessage = (m) => atDaemon.push(m as JSONRPCMessage);
    await daemon.start();
    await client.start();
    const call = {
      jsonrpc: '2.0',
      id: `${RELAY_ID_PREFIX}0`,
      method: 'tools/call',
      params: { name: 'e' },
    } as const;
    const sent = client.send(call);
    expect(atDaemon).toEqual([]);
    await sent;
    // A microtask later, not a turn of the event loop: the relay's hop ends at a pipe, no chain follows.
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    expect(atDaemon).toEqual([call]);
  });

  it("offers a relay's request to the daemon end's intercept as it is sent, unless a message waits before it", async () => {
    const [client, daemon] = linkedPair('s');
    const taken: JSONRPCMessage[] = [];
    const atDaemon: JSONRPCMessage[] = [];
    daemon.intercept = (m) => {
      if ((m as { method?: string }).method !== 'tools/call') return false;
      taken.push(m);
      return true;
    };
    daemon.onmessage = (m) => atDaemon.push(m as JSONRPCMessage);
    await daemon.start();
    await client.start();
    const call = (n: number) =>
      ({
        jsonrpc: '2.0',
        id: `${RELAY_ID_PREFIX}${n}`,
        method: 'tools/call',
        params: { name: 'e' },
      }) as const;
    // Taken as it is sent (the held calls start it at once), the very object.
    const first = call(0);
    const sent = client.send(first);
    expect(taken).toEqual([first]);
    expect(taken[0]).toBe(first);
    await sent;
    // Behind a message still on its way (delivered a turn later), it waits with it, in order.
    void client.send(ping(1));
    void client.send(call(1));
    expect(taken).toHaveLength(1);
    await aTurn();
    expect(atDaemon).toEqual([ping(1)]);
    expect(taken).toEqual([first, call(1)]);
    // One the intercept leaves goes on to the session server, a microtask later.
    daemon.intercept = () => false;
    await client.send(call(2));
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    expect(atDaemon).toEqual([ping(1), call(2)]);
  });

  it('holds messages that arrive before start', async () => {
    const [client, daemon] = linkedPair('s');
    await client.send(ping(7));
    await aTurn();
    const got: JSONRPCMessage[] = [];
    daemon.onmessage = (m) => got.push(m as JSONRPCMessage);
    await daemon.start();
    expect(got).toEqual([ping(7)]);
  });

  it('leaves the event loop its turns while a chain of messages runs', async () => {
    // A session connecting through the link is such a chain (handshake, listings): on microtasks
    // it ran to its end before the daemon read any socket, a thin serve's initialize among them.
    const [client, daemon] = linkedPair('s');
    let hops = 0;
    daemon.onmessage = (m) => void daemon.send(m);
    const done = new Promise<void>((resolve) => {
      client.onmessage = (m) => {
        hops += 1;
        if (hops === 100) resolve();
        else void client.send(m);
      };
    });
    await daemon.start();
    await client.start();
    await client.send(ping(1));
    // Whatever else the loop has to do (here: the next turn's callback) runs between two hops.
    let hopsOnTheNextTurn: number | undefined;
    setImmediate(() => {
      hopsOnTheNextTurn = hops;
    });
    await done;
    expect(hopsOnTheNextTurn).toBeLessThan(2);
  });

  it('closes both ends once, from either end, and says why the daemon end went', async () => {
    let closed = 0;
    const [client, daemon] = linkedPair('s', {
      onClosed: () => closed++,
      relayedProtocolVersion: '2026-07-28',
    });
    expect(client.relayedProtocolVersion).toBe('2026-07-28');
    const heard: string[] = [];
    client.onclose = () => heard.push('client');
    daemon.onclose = () => heard.push('daemon');
    await daemon.close();
    await client.close();
    expect(heard.sort()).toEqual(['client', 'daemon']);
    expect(closed).toBe(1);
    expect(client.closeReason?.()).toMatchObject({
      code: ErrorCode.ConnectionClosed,
      context: { server: 's' },
    });
    await expect(client.send(ping(1))).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
  });

  it('closed by the caller: no close reason, onClosed once', async () => {
    let closed = 0;
    const [client, daemon] = linkedPair('s', { onClosed: () => closed++ });
    let daemonClosed = false;
    daemon.onclose = () => {
      daemonClosed = true;
    };
    await client.close();
    await client.close();
    expect(daemonClosed).toBe(true);
    expect(closed).toBe(1);
    expect(client.closeReason?.()).toBeUndefined();
  });
});
