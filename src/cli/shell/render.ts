import type { Tool } from '@modelcontextprotocol/client';
import { displayPaths, formatOrigin } from '../../errors/index.js';
import type { ServerStatus } from '../../registry/index.js';
import { forTerminal, type SafeText, say } from '../../text/index.js';
import { plural } from '../output/plural.js';
import { renderTable } from '../output/table.js';
import { renderToolHelp as renderCliToolHelp } from '../tool-help/render-tool-help.js';
import { renderToolLine } from '../tool-help/tool-line.js';

/**
 * `/mcp`: each server, its condition, tool count (once listed) and where it is
 * configured (under `home` as `~/…`); then, for each failing server, why (one line each).
 */
export function renderServers(statuses: readonly ServerStatus[], home: string): SafeText {
  if (statuses.length === 0) return say`no servers are configured\n`;
  const table = renderTable(
    ['SERVER', 'STATE', 'TOOLS', 'ORIGIN'],
    statuses.map((s) => [
      s.name,
      s.condition === 'created' ? 'not connected' : s.condition,
      s.connection && !s.listingError ? String(s.tools.length) : '-',
      formatOrigin(s.config.origin, home) || `${s.config.origin.layer} config`,
    ]),
  );
  const reasons = statuses.flatMap((s) => {
    const problem = s.listingError ?? (s.state === 'error' ? s.error : undefined);
    return problem ? [`${s.name}: ${forTerminal(displayPaths(problem.message, home))}\n`] : [];
  });
  return say`${table}\n${reasons.length ? `\n${reasons.join('')}` : ''}`;
}

/** `@server ?`: one line per tool (as `mcpx tools` draws them), then how to go on. */
export function renderToolList(server: string, tools: readonly Tool[], columns: number): SafeText {
  const name = forTerminal(server);
  const lines = tools.map((tool) => renderToolLine(tool, columns)).join('');
  const usage = `Usage: @${name} <tool> ?  |  @${name} <tool> key=value …  |  @${name} <tool> {json}`;
  return say`${name}: ${plural(tools.length, 'tool')}\n${lines}${usage}\n`;
}

/** `@server tool ?`: the same full signature as `mcpx tools server.tool`, written as console calls. */
export function renderToolHelp(server: string, tool: Tool, columns: number): SafeText {
  return forTerminal(
    renderCliToolHelp(tool, { server, width: columns, callPrefix: `@${server} ${tool.name}` }),
  );
}
