import type { Tool } from '@modelcontextprotocol/client';
import { forTerminal } from '../../tools/sanitize.js';
import { forServers } from '../fan-out.js';
import { toJson } from '../output/json.js';
import { plural } from '../output/plural.js';
import { truncate } from '../output/table.js';
import { reportFailures } from '../report.js';
import type { CliSession } from '../session.js';

/** `mcpx tools [server] [--schema]` */
export async function runTools(
  session: CliSession,
  name: string | undefined,
  schema: boolean,
): Promise<number> {
  const outcomes = await forServers(session, name, (c) => c.listTools());
  const { io, options } = session;
  if (options.json) {
    io.stdout.write(
      toJson(
        outcomes.filter((o) => o.ok).map((o) => ({ server: o.server.name, tools: o.ok ? o.value : [] })),
      ),
    );
  } else {
    for (const outcome of outcomes) {
      if (!outcome.ok) continue;
      io.stdout.write(`${outcome.server.name} (${plural(outcome.value.length, 'tool')})\n`);
      for (const tool of outcome.value) io.stdout.write(describeTool(tool, schema, io.columns ?? 100));
    }
  }
  return reportFailures(session, outcomes);
}

function describeTool(tool: Tool, schema: boolean, columns: number): string {
  const name = forTerminal(tool.name);
  const description = tool.description ? forTerminal(tool.description) : '';
  if (schema) {
    return `  ${name}\n${description ? `    ${description.replace(/\n/g, '\n    ')}\n` : ''}    input: ${forTerminal(
      JSON.stringify(tool.inputSchema, null, 2),
    ).replace(/\n/g, '\n    ')}\n`;
  }
  const params = forTerminal(parameterSummary(tool));
  const head = `  ${name}(${params})`;
  const room = Math.max(20, columns - head.length - 3);
  return description ? `${head}  ${truncate(description, room)}\n` : `${head}\n`;
}

/** `a: number, b?: string` from the input schema's properties. */
export function parameterSummary(tool: Pick<Tool, 'inputSchema'>): string {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = new Set(tool.inputSchema.required ?? []);
  return Object.entries(properties)
    .map(([key, prop]) => {
      const type = Array.isArray(prop?.type)
        ? prop.type.join('|')
        : typeof prop?.type === 'string'
          ? prop.type
          : 'any';
      return `${key}${required.has(key) ? '' : '?'}: ${type}`;
    })
    .join(', ');
}
