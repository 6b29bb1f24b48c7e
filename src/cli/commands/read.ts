import { forTerminal } from '../../tools/sanitize.js';
import { ExitCode } from '../exit-codes.js';
import { toJson } from '../output/json.js';
import type { CliSession } from '../session.js';

/** `mcpx read <server> <uri>`: text contents as is, binary contents described. */
export async function runRead(session: CliSession, serverName: string, uri: string): Promise<number> {
  const { io, options } = session;
  const server = await session.server(serverName);
  const connection = await session.connect(server);
  const result = await connection.readResource(uri, { signal: io.signal });
  if (options.json) {
    io.stdout.write(toJson(result));
    return ExitCode.Ok;
  }
  for (const content of result.contents) {
    if ('text' in content && typeof content.text === 'string') {
      const text = forTerminal(content.text);
      io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    } else {
      const blob = 'blob' in content && typeof content.blob === 'string' ? content.blob : '';
      io.stdout.write(
        `${forTerminal(`[binary ${content.uri}${content.mimeType ? ` (${content.mimeType})` : ''}`)}, ${Math.floor((blob.length * 3) / 4)} bytes — use --json to get it base64-encoded]\n`,
      );
    }
  }
  return ExitCode.Ok;
}
