import type { Tool } from '@modelcontextprotocol/client';
import { suggest } from '../../config/index.js';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { forTerminal } from '../../tools/sanitize.js';
import { forServers } from '../fan-out.js';
import { toJson } from '../output/json.js';
import { truncate } from '../output/table.js';
import { reportFailures } from '../report.js';
import type { CliSession } from '../session.js';
import { splitTarget } from '../split-target.js';
import { resolveTarget } from '../target.js';
import { describeType, objectProperties } from '../tool-help/describe-type.js';
import { renderToolHelp } from '../tool-help/render-tool-help.js';

/** `mcpx tools [server | server.tool] [--schema]` */
export async function runTools(
  session: CliSession,
  name: string | undefined,
  schema: boolean,
): Promise<number> {
  if (name !== undefined && splitTarget(name)) return runToolHelp(session, name);
  const outcomes = await forServers(session, name, (c) => c.listTools());
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
      const count = outcome.value.length;
      io.stdout.write(`${outcome.server.name} (${count} ${count === 1 ? 'tool' : 'tools'})\n`);
      for (const tool of outcome.value) io.stdout.write(describeTool(tool, schema, columns));
    }
  }
  return reportFailures(session, outcomes);
}

/** `mcpx tools server.tool`: one tool's full signature (its definition with --json). */
async function runToolHelp(session: CliSession, target: string): Promise<number> {
  const { io, options } = session;
  const { server, name } = await resolveTarget(session, target, 'tool');
  const connection = await session.connect(server);
  const tools = await connection.listTools({ signal: io.signal });
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    const guess = suggest(
      name,
      tools.map((t) => t.name),
    );
    throw new McpxError(
      ErrorCode.UnknownTool,
      `'${server.name}' has no tool named '${forTerminal(name)}'${guess ? ` — did you mean '${forTerminal(guess)}'?` : ''}`,
      {
        server: server.name,
        tool: name,
        fixes: [
          guess
            ? `run \`mcpx tools ${server.name}.${forTerminal(guess)}\``
            : `run \`mcpx tools ${server.name}\` to see its ${tools.length} tools`,
        ],
      },
    );
  }
  if (options.json) io.stdout.write(toJson({ server: server.name, tool }));
  else {
    io.stdout.write(
      renderToolHelp(tool, {
        server: server.name,
        ...(io.stdoutIsTTY && io.columns ? { width: io.columns } : {}),
      }),
    );
  }
  return 0;
}

function describeTool(tool: Tool, schema: boolean, columns: number | undefined): string {
  const name = forTerminal(tool.name);
  const description = tool.description ? forTerminal(tool.description) : '';
  if (schema) {
    return `  ${name}\n${description ? `    ${description.replace(/\n/g, '\n    ')}\n` : ''}    input: ${forTerminal(
      JSON.stringify(tool.inputSchema, null, 2),
    ).replace(/\n/g, '\n    ')}\n`;
  }
  const head = `  ${name}(${forTerminal(parameterSummary(tool))})`;
  if (columns === undefined) {
    const oneLine = description.replace(/\s+/g, ' ').trim();
    return oneLine ? `${head}  ${oneLine}\n` : `${head}\n`;
  }
  // A signature too long for the line gets its description on the next one.
  if (head.length + 2 + 20 > columns) {
    const first = truncate(head, columns);
    return description ? `${first}\n${`      ${truncate(description, columns - 6)}`}\n` : `${first}\n`;
  }
  return description ? `${head}  ${truncate(description, columns - head.length - 2)}\n` : `${head}\n`;
}

/** `a: number, b?: "x" | "y"` from the input schema's properties. */
export function parameterSummary(tool: Pick<Tool, 'inputSchema'>): string {
  const root = tool.inputSchema;
  const object = objectProperties(root, root);
  if (!object) return '';
  return Object.entries(object.properties)
    .map(([key, prop]) => `${key}${object.required.has(key) ? '' : '?'}: ${describeType(prop, root)}`)
    .join(', ');
}
