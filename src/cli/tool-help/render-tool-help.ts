import type { Tool } from '@modelcontextprotocol/client';
import { appResourceUri, isAppOnly } from '../../host/index.js';
import { forTerminal } from '../../text/index.js';
import { resolveRef, type SchemaNode, shapeOf } from '../arguments/schema-shape.js';
import { describeType, objectProperties } from './describe-type.js';
import { APP_ONLY_TAG } from './tool-line.js';
import { wrapText } from './wrap.js';

export interface ToolHelpOptions {
  /** The server's name, for the usage line and the example. */
  readonly server: string;
  /** Terminal columns to wrap descriptions to; none (piped) keeps every line whole. */
  readonly width?: number;
  /** How a call is written; `mcpx call server.tool` by default (the shell passes `@server tool`). */
  readonly callPrefix?: string;
}

const NESTING = 3;

/**
 * One tool's full signature for a person: title and description, a usage line, every
 * parameter (type with enums and unions as `a | b`, array item types, nested objects,
 * required or optional, default, description), the output schema, annotations, and an
 * example call. All server text is sanitized for the terminal.
 *
 * @example renderToolHelp(tool, { server: 'fs', width: io.columns })
 */
export function renderToolHelp(definition: Tool, options: ToolHelpOptions): string {
  const { width } = options;
  // Cleaned before measuring and wrapping, so widths count what the terminal shows.
  const tool = cleanDeep(definition) as Tool;
  const prefix = options.callPrefix ?? `mcpx call ${options.server}.${tool.name}`;
  const out: string[] = [];
  const title = tool.title ?? tool.annotations?.title;
  out.push(`${options.server}.${tool.name}${title ? ` — ${title}` : ''}`);
  if (tool.description) out.push(...wrapText(tool.description, width, '  '));
  const app = appResourceUri(definition);
  if (isAppOnly(definition))
    out.push(
      '',
      ...wrapText(
        `${APP_ONLY_TAG} For its MCP App (${app ?? 'its ui:// page'}) to call: no model is offered it.`,
        width,
      ),
    );
  else if (app) out.push('', ...wrapText(`MCP App: ${app}`, width));
  const input = tool.inputSchema as SchemaNode;
  const inputObject = objectProperties(input, input);
  out.push('', ...wrapText(`Usage: ${prefix}${usage(inputObject, input)}`, width));
  out.push('', 'Parameters:');
  if (inputObject) out.push(...parameters(inputObject, input, '  ', width, 0));
  else out.push('  (none)');
  if (tool.outputSchema) {
    const output = tool.outputSchema as SchemaNode;
    const outputObject = objectProperties(output, output);
    out.push('', 'Output:');
    out.push(
      ...(outputObject
        ? parameters(outputObject, output, '  ', width, 0)
        : [`  ${describeType(output, output)}`]),
    );
  }
  const notes = annotations(tool);
  if (notes.length > 0) out.push('', ...wrapText(`Annotations: ${notes.join(', ')}`, width));
  out.push('', 'Example:', `  ${prefix}${example(inputObject, input)}`);
  return `${out.map((line) => forTerminal(line)).join('\n')}\n`;
}

/** Every string and key of a server's definition, sanitized for the terminal. */
function cleanDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return forTerminal(value);
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => cleanDeep(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k.startsWith('$') ? k : forTerminal(k), cleanDeep(v, depth + 1)]),
  );
}

type ObjectShape = NonNullable<ReturnType<typeof objectProperties>>;

function usage(object: ObjectShape | undefined, root: unknown): string {
  if (!object) return '';
  return Object.entries(object.properties)
    .map(([key, schema]) => {
      const word = `${key}=<${describeType(schema, root).replace(/"/g, '')}>`;
      return object.required.has(key) ? ` ${word}` : ` [${word}]`;
    })
    .join('');
}

function parameters(
  object: ObjectShape,
  root: unknown,
  indent: string,
  width: number | undefined,
  depth: number,
): string[] {
  const lines: string[] = [];
  const entries = Object.entries(object.properties);
  const nameWidth = Math.min(24, Math.max(...entries.map(([key]) => key.length)));
  for (const [key, schema] of entries) {
    const node = resolveRef(schema, root);
    const facts = [object.required.has(key) ? 'required' : 'optional'];
    if ('default' in node) facts.push(`default ${JSON.stringify(node.default)}`);
    const type = describeType(schema, root);
    lines.push(...wrapText(`${key.padEnd(nameWidth)}  ${type}  (${facts.join(', ')})`, width, indent));
    const description = typeof node.description === 'string' ? node.description : undefined;
    if (description) lines.push(...wrapText(description, width, `${indent}    `));
    const nested = depth < NESTING ? objectProperties(schema, root) : undefined;
    if (nested) lines.push(...parameters(nested, root, `${indent}    `, width, depth + 1));
  }
  return lines;
}

function annotations(tool: Tool): string[] {
  const a = tool.annotations ?? {};
  const notes: string[] = [];
  if (a.readOnlyHint === true) notes.push('read-only');
  if (a.destructiveHint === true) notes.push('destructive');
  if (a.destructiveHint === false && a.readOnlyHint !== true) notes.push('not destructive');
  if (a.idempotentHint === true) notes.push('idempotent');
  if (a.openWorldHint === true) notes.push('open world (reaches outside systems)');
  if (a.openWorldHint === false) notes.push('closed world');
  const task = (tool as { execution?: { taskSupport?: string } }).execution?.taskSupport;
  if (task === 'required') notes.push('runs as a task');
  return notes;
}

/** The required parameters with a plausible value each: the schema's own example, default, or first enum value. */
function example(object: ObjectShape | undefined, root: unknown): string {
  if (!object) return '';
  return Object.entries(object.properties)
    .filter(([key]) => object.required.has(key))
    .map(([key, schema]) => ` ${key}=${shellWord(exampleValue(schema, root))}`)
    .join('');
}

function exampleValue(schema: unknown, root: unknown): string {
  const node = resolveRef(schema, root);
  const shape = shapeOf(schema, root);
  const given = Array.isArray(node.examples) && node.examples.length > 0 ? node.examples[0] : node.default;
  const value = given !== undefined ? given : shape.values?.[0];
  if (value !== undefined) {
    if (typeof value !== 'string') return JSON.stringify(value);
    // A value that starts with @ would be read as a file; @@ sends it as written.
    return value.startsWith('@') ? `@${value}` : value;
  }
  if (shape.types.has('string') || shape.any) return 'text';
  if (shape.types.has('integer') || shape.types.has('number')) return '1';
  if (shape.types.has('boolean')) return 'true';
  if (shape.types.has('array')) return '[]';
  if (shape.types.has('object')) return '{}';
  return 'null';
}

/** Quoted for a POSIX shell where needed. */
function shellWord(text: string): string {
  return /^[\w./:@%+,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
