import type { Socket } from 'node:net';
import { CONTROL, type GatewayEvent } from '../../daemon-client/light.js';
// Past text/index.ts, which would bring the prompts and the content renderer into mcpx.cjs.
import { relayed, say } from '../../text/say.js';
import type { CliIo } from '../io/io.js';
import { ThinSession } from './thin-session.js';

/** How long a thin session tries to reach a new daemon after its own went away. */
const RECONNECT_MS = 30_000;
const RETRY_MS = 250;

/**
 * Pipe the client through until the daemon's session ends: its exit code, or undefined when
 * the daemon handed the session back before it read anything. A daemon that goes away
 * mid-session (stopped, upgraded, killed) is replaced: `open` reaches a new one (starting it),
 * the client's session is replayed there (`ThinSession`), and the requests the old one took
 * with it are answered with an error rather than never; the client sees a pause.
 * Long because the pipe is a state machine (the socket in use, the replay, the requests in flight)
 * kept in one closure across daemon replacements.
 */
export function bridge(
  first: Socket,
  io: CliIo,
  open: () => Promise<Socket | undefined>,
): Promise<number | undefined> {
  // The client's MCP lines from the daemon, as bytes: a protocol, not a person's text.
  const stdout = io.protocolOut;
  if (!stdout) {
    first.destroy();
    return Promise.resolve(undefined);
  }
  const session = new ThinSession();
  // Long because the pipe's state machine lives in this executor's closure (see bridge).
  return new Promise((done) => {
    let socket: Socket | undefined = first;
    /** The client's bytes flow to the daemon (a first `go` came). */
    let going = false;
    let finished = false;
    let clientEnded = false;
    let stopping = false;
    let clientCarry: Buffer | undefined;
    /** Whether the client's bytes may go to `socket` now (not while a new session is being set up). */
    let flowing = true;
    /** What the client sent while they could not. */
    let held: Buffer[] = [];
    const stdin = () => (io.stdin ?? process.stdin) as NodeJS.ReadStream;

    // Ctrl-C, SIGTERM: as the client's end of input, so the calls in flight finish (the full serve's stop).
    const stop = () => {
      stopping = true;
      if (!going || !socket) return finish(undefined);
      stdin().off('data', fromClient);
      socket.end();
    };
    io.signal.addEventListener('abort', stop, { once: true });
    // The daemon reloads on a saved config file; a hang-up must not end the session.
    const releaseHangup = io.onHangup?.(() => {});
    const finish = (result: number | undefined) => {
      if (finished) return;
      finished = true;
      io.signal.removeEventListener('abort', stop);
      releaseHangup?.();
      socket?.destroy();
      if (going) {
        // The client's pipe would keep this process waiting on a session that is over.
        stdin().off('data', fromClient);
        stdin().destroy();
      }
      done(result);
    };

    // Client → daemon: the bytes as they come; each whole line is noted (its session, its waits).
    const fromClient = (chunk: Buffer) => {
      const bytes = clientCarry ? Buffer.concat([clientCarry, chunk]) : chunk;
      const end = bytes.lastIndexOf(10);
      clientCarry = end === -1 ? bytes : end + 1 < bytes.length ? bytes.subarray(end + 1) : undefined;
      if (end !== -1) {
        for (const line of bytes.toString('utf8', 0, end).split('\n'))
          if (line.trim()) session.fromClient(line);
      }
      if (!flowing || !socket) {
        held.push(chunk);
        return;
      }
      if (!socket.write(chunk)) {
        // The daemon reads slower than the client writes: the client waits, as on a full pipe.
        stdin().pause();
        socket.once('drain', () => stdin().resume());
      }
    };
    const onClientEnd = () => {
      clientEnded = true;
      socket?.end();
    };

    let draining = false;
    const write = (bytes: Buffer) => {
      if (!bytes.length || stdout.write(bytes) || draining) return;
      // The client reads slower than the daemon answers: the daemon waits, as it would on a full pipe.
      draining = true;
      socket?.pause();
      stdout.once('drain', () => {
        draining = false;
        socket?.resume();
      });
    };

    /** The daemon's session on `current`: its greeting, control lines and MCP lines. */
    const attach = (current: Socket, resumed: boolean) => {
      let greeted = false;
      let code: number | undefined;
      let carry: Buffer | undefined;
      const control = (event: GatewayEvent) => {
        switch (event.t) {
          case 'go':
            if (resumed) {
              for (const line of session.replay()) current.write(`${line}\n`);
              for (const chunk of held) current.write(chunk);
              held = [];
              flowing = true;
              if (clientEnded) current.end();
              else stdin().resume();
              return;
            }
            going = true;
            stdin().on('data', fromClient);
            stdin().once('end', onClientEnd);
            break;
          case 'direct':
            if (resumed)
              return lostForGood('the new mcpx daemon does not hold every server this session serves');
            finish(undefined);
            break;
          case 'err':
            io.stderr.write(relayed(event.text));
            break;
          case 'exit':
            code = event.code;
            break;
        }
      };
      // MCP lines pass through as bytes, unless one answers a replayed request; CONTROL lines
      // (between whole MCP lines) are the daemon's.
      const onData = (chunk: Buffer) => {
        let bytes = carry ? Buffer.concat([carry, chunk]) : chunk;
        carry = undefined;
        if (!greeted) {
          const end = bytes.indexOf(10);
          if (end === -1) {
            carry = bytes;
            return;
          }
          greeted = true;
          // Refused (another mcpx version's daemon, say): the full serve knows what to say.
          if (!(JSON.parse(bytes.toString('utf8', 0, end)) as { ok?: boolean }).ok) {
            return resumed ? lostForGood('the new mcpx daemon refused the session') : finish(undefined);
          }
          bytes = bytes.subarray(end + 1);
        }
        let run = 0;
        let start = 0;
        while (!finished && start < bytes.length) {
          const end = bytes.indexOf(10, start);
          if (end === -1) break;
          if (bytes[start] === CONTROL) {
            write(bytes.subarray(run, start));
            control(JSON.parse(bytes.toString('utf8', start + 1, end)) as GatewayEvent);
            run = end + 1;
          } else if (session.watching() && !session.fromDaemon(bytes.toString('utf8', start, end))) {
            write(bytes.subarray(run, start));
            run = end + 1;
          }
          start = end + 1;
        }
        write(bytes.subarray(run, start));
        if (start < bytes.length) carry = bytes.subarray(start);
      };
      current.on('data', onData);
      current.on('error', () => {});
      current.once('close', () => {
        if (current !== socket) return;
        if (!going) return finish(undefined);
        if (code !== undefined || clientEnded || stopping) return finish(code ?? 1);
        void reconnect();
      });
    };

    const lostForGood = (why: string) => {
      io.stderr.write(say`mcpx serve: ${why}; this session ends (the client starts a new one)\n`);
      finish(1);
    };

    /** The daemon went away mid-session: reach a new one and carry the session over. */
    const reconnect = async () => {
      socket = undefined;
      flowing = false;
      stdin().pause();
      for (const line of session.lost()) write(Buffer.from(`${line}\n`));
      io.stderr.write(say`mcpx serve: the mcpx daemon went away; carrying this session over to a new one\n`);
      const deadline = Date.now() + RECONNECT_MS;
      while (!finished && !stopping && Date.now() < deadline) {
        const next = await open().catch(() => undefined);
        if (next) {
          socket = next;
          attach(next, true);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
      if (!finished) lostForGood('no new mcpx daemon could be reached');
    };

    attach(first, false);
  });
}
