import type { Tool } from '@modelcontextprotocol/client';
import { renderTable, truncate } from '../cli/output/table.js';
import { parameterSummary } from '../cli/tool-help/tool-line.js';
import { formatOrigin } from '../errors/index.js';
import type { ServerStatus } from '../registry/index.js';
import { forTerminal } from '../tools/sanitize.js';

/** `/mcp`: each server, its state, tool count (once listed) and where it is configured. */
export function renderServers(statuses: readonly ServerStatus[]): string {
  if (statuses.length === 0) return 'no servers are configured\n';
  return `${renderTable(
    ['SERVER', 'STATE', 'TOOLS', 'ORIGIN'],
    statuses.map((s) => [
      s.name,
      s.state === 'created' ? 'not connected' : s.state,
      s.connection ? String(s.tools.length) : '-',
      formatOrigin(s.config.origin) || `${s.config.origin.layer} config`,
    ]),
  )}\n`;
}

/** `@server ?`: one line per tool, then how to go on. */
export function renderToolList(server: string, tools: readonly Tool[], columns: number): string {
  const name = forTerminal(server);
  const lines = [`${name}: ${tools.length} tool${tools.length === 1 ? '' : 's'}`];
  for (const tool of tools) {
    // Thin on purpose: the CLI's tool rendering is the one to grow (mcpx tools).
    const head = `  ${forTerminal(tool.name)}(${forTerminal(parameterSummary(tool))})`;
    const description = tool.description ? forTerminal(tool.description) : '';
    lines.push(
      description ? `${head}  ${truncate(description, Math.max(20, columns - head.length - 3))}` : head,
    );
  }
  lines.push(`Usage: @${name} <tool> ?  |  @${name} <tool> key=value …  |  @${name} <tool> {json}`);
  return `${lines.join('\n')}\n`;
}

interface Property {
  type?: unknown;
  enum?: unknown[];
  default?: unknown;
  description?: string;
  items?: Property;
  anyOf?: Property[];
  oneOf?: Property[];
  const?: unknown;
}

/** `@server tool ?`: every parameter (type, required, default, enum, description) and an example call. */
export function renderToolHelp(server: string, tool: Tool): string {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, Property>;
  const required = new Set(tool.inputSchema.required ?? []);
  const lines = [`@${server} ${tool.name}${tool.description ? ` — ${tool.description}` : ''}`];
  const entries = Object.entries(properties);
  lines.push(entries.length ? 'Parameters:' : 'Parameters: none');
  for (const [key, prop] of entries) {
    const facts = [typeOf(prop), required.has(key) ? 'required' : 'optional'];
    if (prop.default !== undefined) facts.push(`default ${JSON.stringify(prop.default)}`);
    if (Array.isArray(prop.enum)) facts.push(`one of ${prop.enum.map((v) => JSON.stringify(v)).join(', ')}`);
    lines.push(`  ${key}  (${facts.join(', ')})${prop.description ? `  ${prop.description}` : ''}`);
  }
  const shown = entries.filter(([key]) => required.has(key));
  const example = (shown.length ? shown : entries.slice(0, 1)).map(
    ([key, prop]) => `${key}=${exampleValue(prop)}`,
  );
  lines.push(`Example: @${server} ${tool.name}${example.length ? ` ${example.join(' ')}` : ''}`);
  return `${forTerminal(lines.join('\n'))}\n`;
}

function typeOf(prop: Property): string {
  const union = prop.anyOf ?? prop.oneOf;
  if (Array.isArray(union)) return union.map(typeOf).join(' | ');
  if (prop.const !== undefined) return JSON.stringify(prop.const);
  const type = Array.isArray(prop.type)
    ? prop.type.join(' | ')
    : typeof prop.type === 'string'
      ? prop.type
      : 'any';
  return type === 'array' && prop.items ? `array of ${typeOf(prop.items)}` : type;
}

function exampleValue(prop: Property): string {
  if (prop.default !== undefined) return quote(prop.default);
  if (Array.isArray(prop.enum) && prop.enum.length) return quote(prop.enum[0]);
  switch (Array.isArray(prop.type) ? prop.type[0] : prop.type) {
    case 'number':
    case 'integer':
      return '1';
    case 'boolean':
      return 'true';
    case 'array':
      return `'[]'`;
    case 'object':
      return `'{}'`;
    default:
      return 'text';
  }
}

function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /^[\w./:@-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
