import type { ServerCapabilities, Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { ServerConfig } from '../config/index.js';
import type { CallerOffer, DaemonCallerInfo } from '../daemon-client/index.js';
import { toMcpxError } from '../errors/index.js';
import { createSessionServer, recordingRequests, SKILLS_EXTENSION } from '../gateway/index.js';
import type { ServingMetrics } from '../metrics/index.js';
import type { InstancePool, InstanceSession } from './instance-pool.js';

/** A caller joined to an instance: what it is told, and its session server on a transport (ended by the returned function). */
export interface Attached {
  readonly notice?: string;
  readonly protocolVersion?: string;
  serveOn(transport: Transport): () => Promise<void>;
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

/** How callers join the pool's instances, for a socket's `serve` and an in-process `link` alike. */
export function createAttach(
  pool: InstancePool,
  metrics: ServingMetrics | undefined,
  now: () => number,
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
        const handle = serveStdio(
          () => {
            const server = createSessionServer(instance.core, {
              client,
              pages: instance.pages,
              capabilities,
              hop: 'daemon',
              ...(instructions ? { instructions } : {}),
              onRequest: recordingRequests(metrics, (event) => {
                if (event.method !== 'tools/call') return;
                instance.calls += 1;
                session.calls += 1;
              }),
            });
            instance.live.add(server);
            return server;
          },
          { transport, onerror: () => {} },
        );
        return async () => {
          release();
          await handle.close().catch(() => {});
        };
      },
    };
  };
}
