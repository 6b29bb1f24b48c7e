import type { DaemonStatus } from '../daemon-client/index.js';
import { errorToJson } from '../errors/index.js';
import type { ConnectWaterfalls } from './connect-waterfalls.js';
import type { ApiAnswer } from './console-api.js';

/** Asks the keep-alive daemon for its status: `undefined` when none runs. */
export type DaemonStatusSource = () => Promise<DaemonStatus | undefined>;

/**
 * `GET /api/waterfalls`: each server's latest connect, one row per span (name, nesting, offset,
 * duration, the error that ended it), as `mcpx doctor --trace` draws them.
 */
export function waterfallsForPage(waterfalls: ConnectWaterfalls): ApiAnswer {
  return {
    status: 200,
    body: waterfalls.list().map(({ server, spans }) => ({
      server,
      // Which connect this is: a reconnect is another trace.
      trace: spans[0]?.traceId,
      // A server the keep-alive daemon holds is connected through it: its spawn is the daemon's.
      routed: spans[0]?.attributes['mcpx.routed'] === true,
      spans: spans.map(({ name, depth, startMs, durationMs, error }) => ({
        name,
        depth,
        startMs,
        durationMs,
        ...(error === undefined ? {} : { error }),
      })),
    })),
  };
}

/**
 * `GET /api/daemon`: the keep-alive daemon for this config as `mcpx daemon status --json` gives
 * it (`running: false` when none runs, `known: false` when this console was given no way to ask).
 */
export async function daemonForPage(source: DaemonStatusSource | undefined): Promise<ApiAnswer> {
  if (!source) return { status: 200, body: { known: false, running: false } };
  try {
    const status = await source();
    return {
      status: 200,
      body: status ? { known: true, running: true, ...status } : { known: true, running: false },
    };
  } catch (error) {
    return { status: 502, body: errorToJson(error) };
  }
}
