import { rm } from 'node:fs/promises';
import { contentAlias, type DaemonPaths } from '../daemon-client/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { type HomeFiles, isAlive, type ProcessIdentity, parseIdentity } from '../home/index.js';

// A daemon's records: its pid file (and the alias under its config's text), by which callers find
// its socket and `mcpx daemon stop` finds it; written once it listens, removed when it stops.

/** What a daemon's records are kept in, and whose they are. */
export interface DaemonRecords {
  readonly home: HomeFiles;
  readonly paths: DaemonPaths;
  readonly identity: ProcessIdentity;
  readonly all: boolean;
  /** The text of the config it was started for (`configKey`): same-text configs elsewhere find it. */
  readonly contentKey?: string;
}

/**
 * Refuses a second daemon for the same config (`mcpx daemon run` typed by hand while one
 * serves): it would rename its socket over the live one and strand the first one's servers.
 */
export async function assertNoOtherDaemon({ home, paths, identity }: DaemonRecords): Promise<void> {
  const running = parseIdentity(await home.readText(paths.pidFile).catch(() => undefined));
  if (running && running.pid !== identity.pid && (await isAlive(running)))
    throw new McpxError(
      ErrorCode.DaemonAlreadyRunning,
      `an mcpx daemon (pid ${running.pid}) already serves this config`,
      {
        origin: { file: paths.absolute.socket },
        fixes: ['use that one (`mcpx daemon status`), or stop it first with `mcpx daemon stop`'],
      },
    );
}

/** Writes the pid file and the content alias; returns the alias's path, if any. */
export async function writeDaemonRecords(records: DaemonRecords): Promise<string | undefined> {
  const { home, paths, identity, all } = records;
  await home.writeText(
    paths.pidFile,
    // The socket's path too: a caller whose environment names another socket folder finds it here.
    JSON.stringify({ ...identity, all, key: paths.key, socket: paths.absolute.socket }),
  );
  const alias = records.contentKey !== undefined ? contentAlias(records.contentKey) : undefined;
  if (alias)
    await home.writeText(
      alias,
      JSON.stringify({
        ...identity,
        all,
        key: paths.key,
        socket: paths.absolute.socket,
      }),
    );
  return alias;
}

/** Removes the records (and the socket) this daemon wrote, never a newer daemon's. */
export async function removeDaemonRecords(
  { home, paths, identity }: DaemonRecords,
  alias: string | undefined,
): Promise<void> {
  const recorded = parseIdentity(await home.readText(paths.pidFile).catch(() => undefined));
  const aliased = alias && parseIdentity(await home.readText(alias).catch(() => undefined));
  if (alias && aliased && aliased.pid === identity.pid) await home.remove(alias).catch(() => {});
  if (recorded?.pid === identity.pid) {
    await home.remove(paths.pidFile).catch(() => {});
    if (!paths.namedPipe) await rm(paths.absolute.socket, { force: true });
  }
}
