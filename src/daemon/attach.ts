import type { JSONRPCMessage, Server, ServerCapabilities, Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { ServerConfig } from '../config/index.js';
import type { CallerOffer, DaemonCallerInfo } from '../daemon-client/index.js';
import { toMcpxError } from '../errors/index.js';
import {
  createSessionServer,
  FastPath,
  HeldCalls,
  recordingRequests,
  SKILLS_EXTENSION,
} from '../gateway/index.js';
import type { ServingMetrics } from '../metrics/index.js';
import type { InstancePool, InstanceSession } from './instance-pool.js';

/**
 * A transport a caller's session is served on (the socket's, the in-process link's daemon end):
 * with `intercept`, the session's plain `tools/call`s take the gateway's fast path.
 */
export interface SessionTransport extends Transport {
  intercept?: ((message: JSONRPCMessage) => boolean) | undefined;
}

/** A caller joined to an instance: what it is told, and its session server on a transport (ended by the returned function). */
export interface Attached {
  readonly notice?: string;
  readonly protocolVersion?: string;
  serveOn(transport: SessionTransport): () => Promise<void>;
}

/**
 * A caller joins the instance for `config` (its server connected, warm or now):
 * what to tell it, and how to serve it the instance's session server over a
 * transport; `release` when it leaves. A server that cannot be reached is its error.
 */
export type Attach = (
  config: ServerConfig,
  caller: DaemonCallerInfo | undefined,
  offer: CallerOffer,
) => Promise<Attached>;

/**
 * How callers join the pool's instances, for a socket's `serve` and an in-process `link` alike.
 * `fastPath` (default true): a caller's plain `tools/call` is taken off its transport before the
 * session server's SDK dispatch and run by the session server's own handler, its upstream hop a
 * line relay where the server's connection allows it (`gateway/fast-path.ts`, as `mcpx serve`
 * takes its client's): the same policy, audit, metrics, errors and result, for less.
 */
export function createAttach(
  pool: InstancePool,
  metrics: ServingMetrics | undefined,
  now: () => number,
  fastPath = true,
): Attach {
  // Names each caller's session server (a server's questions are routed back by it).
  let links = 0;
  return async (config, caller, offer) => {
    const instance = await pool.acquire(config, offer);
    const crashed = instance.crashed;
    instance.crashed = undefined;
    const session: InstanceSession = {
      ...(caller?.pid !== undefined ? { pid: caller.pid } : {}),
      command: caller?.command ?? 'mcpx',
      since: now(),
      calls: 0,
    };
    instance.sessions.add(session);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      instance.sessions.delete(session);
      pool.release(instance);
    };
    let capabilities: ServerCapabilities;
    let instructions: string | undefined;
    let protocolVersion: string | undefined;
    try {
      const connection = await instance.registry.connect(config.name);
      protocolVersion = connection.protocolVersion;
      const { tools, resources, prompts, completions, logging } =
        connection.capabilities as ServerCapabilities;
      // Skills pass on as the gateway passes them (each file verified here, and again by the caller).
      const skills = connection.skills.supported ? { extensions: { [SKILLS_EXTENSION]: {} } } : {};
      capabilities = { tools, resources, prompts, completions, logging, ...skills };
      instructions = connection.instructions;
    } catch (error) {
      release();
      instance.lastError = toMcpxError(error).message;
      throw toMcpxError(error);
    }
    links += 1;
    const client = `daemon-${links}-${now()}`;
    return {
      ...(protocolVersion ? { protocolVersion } : {}),
      ...(crashed
        ? { notice: `'${config.name}' stopped since the last call (${crashed}); the daemon started it again` }
        : {}),
      serveOn: (transport) => {
        let served: Server | undefined;
        const send = (m: JSONRPCMessage) => transport.send(m);
        const onRequest = recordingRequests(metrics, (event) => {
          if (event.method !== 'tools/call') return;
          instance.calls += 1;
          session.calls += 1;
        });
        const fast = fastPath ? new FastPath({ core: instance.core, server: () => served, send }) : undefined;
        // A relayed call of another gateway in this process (a thin serve's session) runs from the
        // held core straight away: one gateway handler per call, not two (`gateway/held-calls.ts`).
        const held = fastPath
          ? new HeldCalls({ core: instance.core, client, server: () => served, onRequest, send })
          : undefined;
        if (fast && held) transport.intercept = (message) => held.take(message) || fast.take(message);
        const handle = serveStdio(
          () => {
            const server = createSessionServer(instance.core, {
              client,
              pages: instance.pages,
              capabilities,
              hop: 'daemon',
              ...(instructions ? { instructions } : {}),
              ...(onRequest ? { onRequest } : {}),
            });
            instance.live.add(server);
            served = server;
            return server;
          },
          { transport, onerror: () => {} },
        );
        return async () => {
          release();
          // As the SDK server aborts its handlers when its caller leaves.
          fast?.close();
          held?.close();
          await handle.close().catch(() => {});
        };
      },
    };
  };
}
