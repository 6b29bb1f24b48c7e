import type { DaemonStatus, WarmServerStatus } from '../daemon-client/index.js';
import type { InstancePool } from './instance-pool.js';

/** What `mcpx daemon status` is told: the daemon, and each instance it holds with its sessions. */
export function daemonStatus(
  pool: InstancePool,
  daemon: {
    readonly pid: number;
    readonly startedAt: number;
    readonly all: boolean;
    readonly clients: number;
  },
  now: () => number,
): DaemonStatus {
  return {
    pid: daemon.pid,
    uptimeMs: now() - daemon.startedAt,
    all: daemon.all,
    clients: daemon.clients,
    servers: pool.list().map(
      (instance): WarmServerStatus => ({
        name: instance.config.name,
        envTag: instance.key.tag,
        state: instance.registry.status(instance.config.name).state,
        offers: Object.keys(instance.offer.capabilities),
        ...(instance.connectedAt !== undefined ? { uptimeMs: now() - instance.connectedAt } : {}),
        calls: instance.calls,
        ...(instance.lastError ? { lastError: instance.lastError } : {}),
        sessions: [...instance.sessions].map((s) => ({
          ...(s.pid !== undefined ? { pid: s.pid } : {}),
          command: s.command,
          sinceMs: now() - s.since,
          calls: s.calls,
        })),
      }),
    ),
  };
}
