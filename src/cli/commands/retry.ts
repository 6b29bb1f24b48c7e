import { say } from '../../text/index.js';
import type { CliContext } from '../context/context.js';
import { ExitCode } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';
import { plural } from '../output/plural.js';

/** `mcpx retry <server>`: connect and list the server's tools again, failing loudly if listing fails. */
export async function runRetry(session: CliContext, name: string): Promise<number> {
  const server = await session.host.server(name);
  const registry = await session.host.registry();
  const tools = await registry.retry(server.name);
  if (session.options.json)
    session.io.stdout.write(toJson({ server: server.name, tools: tools.map((t) => t.name) }));
  else session.io.stdout.write(say`${server.name}: ${plural(tools.length, 'tool')}\n`);
  return ExitCode.Ok;
}
