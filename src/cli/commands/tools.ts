import type { Tool } from '@modelcontextprotocol/client';
import { forTerminal, say } from '../../text/index.js';
import type { CliContext } from '../context/context.js';
import { toJson } from '../output/json.js';
import { plural } from '../output/plural.js';
import { forServers } from '../target/fan-out.js';
import { reportFailures } from '../target/report.js';
import { splitTarget } from '../target/split-target.js';
import { resolveTarget } from '../target/target.js';
import { renderToolHelp } from '../tool-help/render-tool-help.js';
import { renderToolLine } from '../tool-help/tool-line.js';
import { unknownToolError } from '../tool-help/unknown-tool.js';

/** `mcpx tools [server | server.tool] [--schema]` */
export async function runTools(
  session: CliContext,
  name: string | undefined,
  schema: boolean,
): Promise<number> {
  if (name !== undefined && splitTarget(name)) return runToolHelp(session, name);
  // Connecting listed the tools (filtered by the config's allowed_tools / disabled_tools);
  // the registry keeps that list, so asking the server again would be a second round trip.
  const registry = await session.host.registry();
  const outcomes = await forServers(session, name, async (c) => {
    const { tools, listingError } = registry.status(c.server.name);
    // A listing that failed is that server's failure (its reason on stderr, a non-zero exit), not "0 tools".
    if (listingError) throw listingError;
    return tools;
  });
  const { io, options } = session;
  if (options.json) {
    io.stdout.write(
      toJson(
        outcomes.filter((o) => o.ok).map((o) => ({ server: o.server.name, tools: o.ok ? o.value : [] })),
      ),
    );
  } else {
    // On a terminal each tool is one line of its width; piped, the full text goes through.
    const columns = io.stdoutIsTTY ? (io.columns ?? 80) : undefined;
    for (const outcome of outcomes) {
      if (!outcome.ok) continue;
      io.stdout.write(say`${outcome.server.name} (${plural(outcome.value.length, 'tool')})\n`);
      for (const tool of outcome.value) {
        io.stdout.write(forTerminal(schema ? describeToolSchema(tool) : renderToolLine(tool, columns)));
      }
    }
  }
  return reportFailures(session, outcomes);
}

/** `mcpx tools server.tool`: one tool's full signature (its definition with --json). */
async function runToolHelp(session: CliContext, target: string): Promise<number> {
  const { io, options } = session;
  const { server, name } = await resolveTarget(session, target, 'tool');
  await session.host.connect(server);
  const tools = (await session.host.registry()).status(server.name).tools;
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    throw unknownToolError(
      server.name,
      name,
      tools.map((t) => t.name),
      (guess) => `mcpx tools ${server.name}.${guess}`,
    );
  }
  if (options.json) io.stdout.write(toJson({ server: server.name, tool }));
  else {
    io.stdout.write(
      forTerminal(
        renderToolHelp(tool, {
          server: server.name,
          ...(io.stdoutIsTTY && io.columns ? { width: io.columns } : {}),
        }),
      ),
    );
  }
  return 0;
}

function describeToolSchema(tool: Tool): string {
  const name = forTerminal(tool.name);
  const description = tool.description ? forTerminal(tool.description) : '';
  return `  ${name}\n${description ? `    ${description.replace(/\n/g, '\n    ')}\n` : ''}    input: ${forTerminal(
    JSON.stringify(tool.inputSchema, null, 2),
  ).replace(/\n/g, '\n    ')}\n`;
}
