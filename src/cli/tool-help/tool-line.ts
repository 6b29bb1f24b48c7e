import type { Tool } from '@modelcontextprotocol/client';
import { isAppOnly } from '../../host/index.js';
import { forTerminal } from '../../text/index.js';
import { truncate } from '../output/table.js';
import { describeType, objectProperties } from './describe-type.js';

/** What a listing says of a tool for its MCP App alone (`_meta.ui.visibility: ["app"]`). */
export const APP_ONLY_TAG = '[app only]';

/**
 * One tool as a listing line, `  name(a: number, b?: "x" | "y")  description`, sanitized.
 * With `columns` (a terminal) it fits that width, the description cut with `…` (a signature
 * too long for the line puts it on the next one); without (piped) the full text goes out.
 */
export function renderToolLine(tool: Tool, columns?: number): string {
  const said = tool.description ? forTerminal(tool.description).replace(/\s+/g, ' ').trim() : '';
  // A tool for its MCP App alone is no model's: said first, before a cut could hide it.
  const description = isAppOnly(tool) ? `${APP_ONLY_TAG}${said ? ` ${said}` : ''}` : said;
  const head = `  ${forTerminal(tool.name)}(${forTerminal(parameterSummary(tool))})`;
  if (columns === undefined) return description ? `${head}  ${description}\n` : `${head}\n`;
  if (head.length + 2 + 20 > columns) {
    const first = `  ${truncate(head.trimStart(), columns - 2)}`;
    return description ? `${first}\n      ${truncate(description, columns - 6)}\n` : `${first}\n`;
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
