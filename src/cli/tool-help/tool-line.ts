import type { Tool } from '@modelcontextprotocol/client';
import { forTerminal } from '../../text/index.js';
import { truncate } from '../output/table.js';
import { describeType, objectProperties } from './describe-type.js';

/**
 * One tool as a listing line, `  name(a: number, b?: "x" | "y")  description`, sanitized.
 * With `columns` (a terminal) it fits that width, the description cut with `…` (a signature
 * too long for the line puts it on the next one); without (piped) the full text goes out.
 */
export function renderToolLine(tool: Tool, columns?: number): string {
  const description = tool.description ? forTerminal(tool.description).replace(/\s+/g, ' ').trim() : '';
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
