import type { Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/client';
import { canonicalJson } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { toolFingerprint } from '../permissions/index.js';
import {
  entryFingerprint,
  type GeneratedEntry,
  type GeneratedManifest,
  type GeneratedTool,
  type ListedCatalogue,
  recordedPrompt,
  recordedResource,
  recordedTemplate,
} from './manifest.js';
import { schemaType } from './schema-type.js';

/** How one tool (or resource, resource template, prompt) differs from the code generated for it. */
export interface ToolDrift {
  /** The tool's name on the server (a resource's URI, a template's URI template, a prompt's name). */
  readonly tool: string;
  /** Absent for a tool; else what `tool` names. */
  readonly subject?: 'resource' | 'resource template' | 'prompt';
  /** Listed now and not generated, generated and not listed now, or both with another fingerprint. */
  readonly kind: 'added' | 'removed' | 'changed';
  /** In words, one change each (a parameter's type, a description, …). */
  readonly changes: readonly string[];
}

type Properties = Record<string, unknown>;

const propertiesOf = (tool: Tool): Properties => (tool.inputSchema?.properties ?? {}) as Properties;

const requiredOf = (tool: Tool): readonly string[] =>
  Array.isArray(tool.inputSchema?.required) ? (tool.inputSchema.required as string[]) : [];

/** One line for a type, however long the type is written. */
const oneLine = (type: string): string => type.replace(/\s*\n\s*/g, ' ');

/** What changed in one tool, as a person reviewing the generated code wants it said. */
export function describeDrift(before: Tool, after: Tool): string[] {
  const changes: string[] = [];
  if ((before.description ?? '') !== (after.description ?? '')) changes.push('description changed');
  const [was, now] = [propertiesOf(before), propertiesOf(after)];
  const [wasRequired, nowRequired] = [requiredOf(before), requiredOf(after)];
  for (const name of Object.keys(now)) {
    if (!Object.hasOwn(was, name)) {
      changes.push(`parameter added: ${name}${nowRequired.includes(name) ? ' (required)' : ''}`);
    }
  }
  for (const name of Object.keys(was))
    if (!Object.hasOwn(now, name)) changes.push(`parameter removed: ${name}`);
  for (const name of Object.keys(now)) {
    if (!Object.hasOwn(was, name)) continue;
    const [from, to] = [
      oneLine(schemaType(was[name], before.inputSchema)),
      oneLine(schemaType(now[name], after.inputSchema)),
    ];
    if (from !== to) changes.push(`parameter ${name}: type ${from} → ${to}`);
    else if (canonicalJson(was[name]) !== canonicalJson(now[name]))
      changes.push(`parameter ${name}: its schema changed`);
    if (wasRequired.includes(name) !== nowRequired.includes(name)) {
      changes.push(`parameter ${name}: now ${nowRequired.includes(name) ? 'required' : 'optional'}`);
    }
  }
  if (canonicalJson(before.outputSchema ?? null) !== canonicalJson(after.outputSchema ?? null))
    changes.push('output schema changed');
  if (canonicalJson(before.annotations ?? null) !== canonicalJson(after.annotations ?? null))
    changes.push('annotations changed');
  return changes.length > 0 ? changes : ['its definition changed'];
}

/** How one tool stands against its generated code: undefined when it still matches. */
export function toolDrift(generated: GeneratedTool, current: Tool | undefined): ToolDrift | undefined {
  if (!current) return { tool: generated.name, kind: 'removed', changes: ['the server no longer lists it'] };
  if (toolFingerprint(current) === generated.fingerprint) return undefined;
  return { tool: generated.name, kind: 'changed', changes: describeDrift(generated.definition, current) };
}

/**
 * Every difference between a manifest and the catalogue a server lists now: its tools in name
 * order, then its resources, resource templates and prompts.
 */
export function catalogueDrift(manifest: GeneratedManifest, catalogue: ListedCatalogue): ToolDrift[] {
  const { tools } = catalogue;
  const current = new Map(tools.map((t) => [t.name, t]));
  const drifts: ToolDrift[] = [];
  for (const generated of manifest.tools) {
    const drift = toolDrift(generated, current.get(generated.name));
    if (drift) drifts.push(drift);
  }
  const known = new Set(manifest.tools.map((t) => t.name));
  for (const tool of tools) {
    if (!known.has(tool.name))
      drifts.push({ tool: tool.name, kind: 'added', changes: ['not in the generated code'] });
  }
  return [
    ...drifts.sort(byName),
    ...entriesDrift('resource', manifest.resources, catalogue.resources, (r) => r.uri, recordedResource),
    ...entriesDrift(
      'resource template',
      manifest.resourceTemplates,
      catalogue.resourceTemplates,
      (t) => t.uriTemplate,
      recordedTemplate,
    ),
    ...entriesDrift('prompt', manifest.prompts, catalogue.prompts, (p) => p.name, recordedPrompt),
  ];
}

const byName = (a: ToolDrift, b: ToolDrift) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0);

/** How a server's resources (templates, prompts) stand against the generated ones, in key order. */
function entriesDrift<T extends Resource | ResourceTemplateType | Prompt>(
  subject: NonNullable<ToolDrift['subject']>,
  generated: readonly GeneratedEntry<T>[],
  listed: readonly T[],
  keyOf: (entry: T) => string,
  recorded: (entry: T) => T,
): ToolDrift[] {
  const now = new Map(listed.map((entry) => [keyOf(entry), recorded(entry)]));
  const drifts: ToolDrift[] = [];
  for (const entry of generated) {
    const current = now.get(entry.key);
    if (!current)
      drifts.push({ tool: entry.key, subject, kind: 'removed', changes: ['the server no longer lists it'] });
    else if (entryFingerprint(current) !== entry.fingerprint)
      drifts.push({
        tool: entry.key,
        subject,
        kind: 'changed',
        changes: describeEntryDrift(entry.definition, current),
      });
  }
  const known = new Set(generated.map((e) => e.key));
  for (const key of now.keys()) {
    if (!known.has(key))
      drifts.push({ tool: key, subject, kind: 'added', changes: ['not in the generated code'] });
  }
  return drifts.sort(byName);
}

/** What changed in a resource, template or prompt: each field by name, a prompt's arguments one by one. */
function describeEntryDrift(
  before: Resource | ResourceTemplateType | Prompt,
  after: typeof before,
): string[] {
  const changes: string[] = [];
  const [was, now] = [before as Record<string, unknown>, after as Record<string, unknown>];
  for (const field of ['name', 'title', 'description', 'mimeType']) {
    if (canonicalJson(was[field] ?? null) !== canonicalJson(now[field] ?? null))
      changes.push(`${field} changed`);
  }
  const argumentsOf = (entry: Record<string, unknown>) =>
    new Map(((entry.arguments ?? []) as Prompt['arguments'] & object).map((a) => [a.name, a]));
  const [wasArgs, nowArgs] = [argumentsOf(was), argumentsOf(now)];
  for (const [name, arg] of nowArgs) {
    const old = wasArgs.get(name);
    if (!old) changes.push(`argument added: ${name}${arg.required ? ' (required)' : ''}`);
    else if (Boolean(old.required) !== Boolean(arg.required))
      changes.push(`argument ${name}: now ${arg.required ? 'required' : 'optional'}`);
    else if ((old.description ?? '') !== (arg.description ?? ''))
      changes.push(`argument ${name}: description changed`);
  }
  for (const name of wasArgs.keys()) if (!nowArgs.has(name)) changes.push(`argument removed: ${name}`);
  return changes.length > 0 ? changes : ['its definition changed'];
}

/** One drift in words: `'get-item' changed: parameter id: type number → string`, `prompt 'greet' added: …`. */
export function driftLine(drift: ToolDrift): string {
  return `${drift.subject ? `${drift.subject} ` : ''}'${drift.tool}' ${drift.kind}: ${drift.changes.join('; ')}`;
}

/**
 * The error for code that no longer matches its server: every drift among its causes, and how
 * to bring the code up to date (or, at run time, to call anyway).
 */
export function driftError(
  server: string,
  drifts: readonly ToolDrift[],
  options: { readonly file?: string; readonly atRunTime?: boolean } = {},
): McpxError {
  const allTools = drifts.every((d) => d.subject === undefined);
  const what = `${drifts.length} ${allTools ? (drifts.length === 1 ? 'tool differs' : 'tools differ') : drifts.length === 1 ? 'entry differs' : 'entries differ'}`;
  const subject = options.file ?? 'the generated code';
  return new McpxError(ErrorCode.ToolsChanged, `'${server}' no longer matches ${subject}: ${what}`, {
    server,
    ...(options.file ? { origin: { file: options.file } } : {}),
    ...(drifts.length === 1 && drifts[0] && !drifts[0].subject ? { tool: drifts[0].tool } : {}),
    causes: drifts.map(driftLine),
    fixes: [
      `review the changes, then generate again: mcpx generate ${server}${options.file ? ` --out ${options.file}` : ''}`,
      ...(options.atRunTime
        ? ['or pass { allowChanged: true } to connect() to call the changed tools anyway']
        : []),
    ],
  });
}
