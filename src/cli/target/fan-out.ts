import type { ServerConfig } from '../../config/index.js';
import { ErrorCode, McpxError, toMcpxError } from '../../errors/index.js';
import type { ServerConnection } from '../../host/index.js';
import type { CliContext } from '../context/context.js';

export type ServerOutcome<T> =
  | {
      readonly server: ServerConfig;
      readonly ok: true;
      readonly value: T;
      readonly connection: ServerConnection;
    }
  | { readonly server: ServerConfig; readonly ok: false; readonly error: McpxError };

/**
 * Run `work` against one named server or, without a name, every usable server
 * in parallel through the registry. One broken server yields a failed
 * outcome; it never stops the others. A named server's failure is thrown, as
 * the user asked for it alone.
 */
export async function forServers<T>(
  session: CliContext,
  name: string | undefined,
  work: (connection: ServerConnection) => Promise<T>,
): Promise<ServerOutcome<T>[]> {
  const adhoc = session.adhoc;
  if (name !== undefined || adhoc) {
    const server = name === undefined ? (adhoc as ServerConfig) : await session.host.server(name);
    const connection = await session.host.connect(server);
    return [{ server, ok: true, value: await work(connection), connection }];
  }
  const registry = await session.host.registry();
  const statuses = await registry.connectAll({ signal: session.io.signal });
  return Promise.all(
    statuses.map(async (status): Promise<ServerOutcome<T>> => {
      const connection = status.connection;
      if (!connection) {
        const error =
          status.error ??
          new McpxError(ErrorCode.ConnectionClosed, `'${status.name}' is not connected`, {
            server: status.name,
          });
        return { server: status.config, ok: false, error };
      }
      try {
        return { server: status.config, ok: true, value: await registry.use(status.name, work), connection };
      } catch (error) {
        return { server: status.config, ok: false, error: toMcpxError(error) };
      }
    }),
  );
}
