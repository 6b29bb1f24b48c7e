import { chmod, rename, rm } from 'node:fs/promises';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import type { DaemonPaths } from '../daemon-client/index.js';

/**
 * Listen on the daemon's socket, owner-only from the moment a caller can see it: listened on
 * under a temporary name and renamed once private, so a caller never sees a socket with the
 * umask's mode (which checkSocketSafe would rightly refuse). A Windows named pipe has no mode to
 * set and cannot be renamed: it is listened on as it is (its default security descriptor keeps
 * other users out, see socket-safety.ts).
 */
export async function listenPrivately(
  paths: DaemonPaths,
  pid: number,
  onSocket: (socket: Socket) => void,
): Promise<NetServer> {
  const staging = paths.namedPipe ? paths.absolute.socket : `${paths.absolute.socket}.${pid}.tmp`;
  if (!paths.namedPipe) await rm(staging, { force: true });
  const listener = createServer(onSocket);
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(staging, () => {
      listener.off('error', reject);
      resolve();
    });
  });
  if (!paths.namedPipe) {
    try {
      await chmod(staging, 0o600);
      await rename(staging, paths.absolute.socket);
    } catch (error) {
      // A daemon that cannot publish its socket must not stay behind listening on nothing.
      await new Promise<void>((resolve) => listener.close(() => resolve()));
      await rm(staging, { force: true });
      throw error;
    }
  }
  return listener;
}
