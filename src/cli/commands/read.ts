import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { ErrorCode, McpxError } from '../../errors/index.js';
import type { ServerConnection } from '../../host/index.js';
import { forTerminal, say } from '../../text/index.js';
import { commandFeatures, explainUnanswered } from '../context/command-features.js';
import type { CliContext, CliDoor } from '../context/context.js';
import { usageError } from '../context/global-options.js';
import { ExitCode } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';
import { plural } from '../output/plural.js';

/**
 * `mcpx read <server> <uri> [--watch]`: text contents as is, binary contents described.
 * With --watch, read again each time the server says the resource changed, until Ctrl-C
 * (with --json, one JSON line per read).
 */
export async function runRead(
  door: CliDoor,
  serverName: string,
  uri: string,
  flags: { readonly watch?: boolean; readonly raw?: boolean } = {},
): Promise<number> {
  const { io } = door;
  if (flags.raw && (flags.watch || door.options.json)) {
    throw usageError(
      `--raw writes one resource's bytes; it does not go with ${flags.watch ? '--watch' : '--json'}`,
      `e.g. mcpx read ${serverName} ${uri} --raw > file`,
    );
  }
  // A server may ask its questions (elicitation) while it reads.
  const session = door.open({ features: await commandFeatures(io), offerConfigRoots: true });
  const server = await session.host.server(serverName);
  // Reading a resource needs no tool definitions: no tools/list round trip.
  const connection = await session.host.connect(server, { listTools: false });
  if (flags.watch) {
    session.io.jsonStderr?.writeEachLine(); // it runs until Ctrl-C: notices as they come
    return watch(session, connection, uri);
  }
  const read = () =>
    connection.readResource(uri, { signal: io.signal }).catch((error: unknown) => {
      throw explainUnanswered(error, session, 'mcpx read');
    });
  if (flags.raw) {
    writeRaw(session, serverName, uri, await read());
    return ExitCode.Ok;
  }
  print(session, await read(), 2);
  return ExitCode.Ok;
}

/** Subscribe first, then read, so a change between the two is not missed; updates that come while reading make one more read. */
async function watch(session: CliContext, connection: ServerConnection, uri: string): Promise<number> {
  const { io } = session;
  let dirty = false;
  let wake: (() => void) | undefined;
  let lostBecause: Error | undefined;
  const stopNoting = connection.onClose((reason) => {
    lostBecause = reason;
  });
  const subscription = await connection.subscribeResource(
    uri,
    () => {
      dirty = true;
      wake?.();
    },
    { signal: io.signal },
  );
  try {
    const interrupted = new Promise<'interrupted'>((resolve) => {
      if (io.signal.aborted) resolve('interrupted');
      io.signal.addEventListener('abort', () => resolve('interrupted'), { once: true });
    });
    print(session, await connection.readResource(uri, { signal: io.signal }), 0);
    for (;;) {
      if (!dirty) {
        const changed = new Promise<'changed'>((resolve) => {
          wake = () => resolve('changed');
        });
        const next = await Promise.race([changed, interrupted, subscription.ended]);
        wake = undefined;
        if (next === 'interrupted') return ExitCode.Cancelled;
        if (next !== 'changed') throw stoppedWatching(connection, uri, next, lostBecause);
      }
      dirty = false;
      print(session, await connection.readResource(uri, { signal: io.signal }), 0);
    }
  } catch (error) {
    if (io.signal.aborted) return ExitCode.Cancelled;
    throw error;
  } finally {
    stopNoting();
    await subscription.unsubscribe().catch(() => {});
  }
}

function stoppedWatching(
  connection: ServerConnection,
  uri: string,
  how: string,
  reason: Error | undefined,
): McpxError {
  const server = connection.server.name;
  const crash = reason instanceof McpxError ? reason : undefined;
  return new McpxError(
    ErrorCode.ConnectionClosed,
    how === 'ended-by-server'
      ? `'${server}' ended the subscription to ${forTerminal(uri)}`
      : `lost the connection to '${server}' while watching ${forTerminal(uri)}${crash ? `: ${crash.message}` : ''}`,
    {
      server,
      origin: connection.server.origin,
      ...(crash ? { cause: crash, stderrTail: crash.context.stderrTail ?? [] } : {}),
      fixes: [`run \`mcpx read ${server} ${forTerminal(uri)} --watch\` again once the server is back`],
    },
  );
}

function print(session: CliContext, result: ReadResourceResult, jsonIndent: number): void {
  const { io, options } = session;
  if (options.json) {
    io.stdout.write(toJson(result, jsonIndent));
    return;
  }
  for (const content of result.contents) {
    if ('text' in content && typeof content.text === 'string') {
      const text = forTerminal(content.text);
      io.stdout.write(text.endsWith('\n') ? text : say`${text}\n`);
    } else {
      const blob = 'blob' in content && typeof content.blob === 'string' ? content.blob : '';
      io.stdout.write(
        say`${forTerminal(`[binary ${content.uri}${content.mimeType ? ` (${content.mimeType})` : ''}`)}, ${plural(Buffer.from(blob, 'base64').length, 'byte')} — --raw > file writes its bytes, --json gives base64]\n`,
      );
    }
  }
}

/**
 * `--raw`: the resource's bytes on stdout exactly — a blob decoded from base64,
 * text as it came — for `> file` or a pipe. A terminal gets no binary (it would
 * be garbage, and a server's bytes may steer the terminal); text on a terminal
 * is shown cleaned, as without --raw.
 */
function writeRaw(session: CliContext, server: string, uri: string, result: ReadResourceResult): void {
  const { io } = session;
  const hasBlob = result.contents.some((c) => 'blob' in c && typeof c.blob === 'string');
  if (io.stdoutIsTTY && hasBlob) {
    throw usageError(
      `${forTerminal(uri)} is binary: --raw will not write it to a terminal`,
      `redirect it to a file or a program: mcpx read ${server} '${forTerminal(uri)}' --raw > file`,
    );
  }
  for (const content of result.contents) {
    if ('blob' in content && typeof content.blob === 'string')
      io.stdout.write(Buffer.from(content.blob, 'base64'));
    else if ('text' in content && typeof content.text === 'string')
      // Into a pipe or a file, the text's exact bytes: what --raw asked for.
      io.stdout.write(io.stdoutIsTTY ? forTerminal(content.text) : Buffer.from(content.text, 'utf8'));
  }
}
