import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { controlLine, type GatewayRequest } from '../daemon-client/index.js';

/**
 * A thin `mcpx serve`'s session as the daemon runs it (`op: 'gateway'`, see
 * `daemon-client/gateway-wire.ts`): the caller's stdin and stdout are the socket, its stderr
 * is CONTROL lines on it.
 */
export interface RemoteSession {
  /** The caller's stdin: what its client writes, from `go()` on. */
  readonly stdin: NodeJS.ReadableStream;
  /** The caller's stdout: whole MCP lines only (the gateway writes nothing else). */
  readonly stdout: Socket;
  /** Text for the caller's stderr; held until `go()`, dropped on `goDirect()`. */
  writeErr(text: string): void;
  /** Aborted when the caller has gone. */
  readonly signal: AbortSignal;
  /** The session is the daemon's: the caller starts piping its client's bytes. Idempotent. */
  go(): void;
  /** Before `go()`: the caller runs `mcpx serve` itself (what was said here is dropped). */
  goDirect(): void;
  /** Whether `go()` was called. */
  readonly going: boolean;
}

/** Runs one thin caller's `mcpx serve` (the CLI's `run`, injected: the library does not know the CLI). */
export type GatewayCommand = (request: GatewayRequest, session: RemoteSession) => Promise<number>;

/** Serve one `gateway` connection until its command ends. */
export async function serveGatewaySession(
  socket: Socket,
  request: GatewayRequest,
  command: GatewayCommand,
): Promise<void> {
  const controller = new AbortController();
  let state: 'waiting' | 'going' | 'direct' = 'waiting';
  let held: string[] = [];
  // The caller's stdin ending is its client's end of input, not of the session: the calls in
  // flight still answer (as `mcpx serve` drains them), so the socket stays writable until done.
  socket.allowHalfOpen = true;
  socket.once('close', () => controller.abort());
  // readLine() paused the socket; the gateway's reader attaches later. The pass-through flows
  // the moment it does, and holds whatever the client sent before.
  const stdin = new PassThrough();
  const say = (text: string) => {
    if (!socket.destroyed) socket.write(controlLine({ t: 'err', text }));
  };
  const session: RemoteSession = {
    stdin,
    stdout: socket,
    signal: controller.signal,
    writeErr(text) {
      if (state === 'going') say(text);
      else if (state === 'waiting') held.push(text);
    },
    go() {
      if (state !== 'waiting') return;
      state = 'going';
      if (socket.destroyed) return;
      socket.write(controlLine({ t: 'go' }));
      for (const text of held) say(text);
      held = [];
      socket.pipe(stdin);
    },
    goDirect() {
      if (state === 'waiting') state = 'direct';
    },
    get going() {
      return state === 'going';
    },
  };
  let code: number;
  try {
    code = await command(request, session);
  } catch (error) {
    session.writeErr(`mcpx daemon: ${(error as Error).message}\n`);
    code = 1;
  }
  if (socket.destroyed) return;
  // Ended before it was the daemon's (a config error, no servers): `mcpx serve` in full says it,
  // in its own words, rather than the daemon in its.
  socket.end(controlLine(session.going ? { t: 'exit', code } : { t: 'direct' }));
}
