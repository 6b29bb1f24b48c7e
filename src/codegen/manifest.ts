import { createHash } from 'node:crypto';
import type { Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/client';
import { canonicalJson } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { toolFingerprint } from '../permissions/index.js';

/** One tool as it was when its code was generated. */
export interface GeneratedTool {
  /** The server's own name for it: what a call sends. */
  readonly name: string;
  /** Its function's name in the generated module (docs/generate.md says how it is chosen). */
  readonly identifier: string;
  /** `toolFingerprint` of the definition: the hash a permission approval records too. */
  readonly fingerprint: string;
  /** What the fingerprint covers (description, schemas, annotations), to say what changed. */
  readonly definition: Tool;
}

/**
 * One resource, resource template or prompt as it was when its code was generated: what a
 * reader or a prompt's function relies on (names, descriptions, MIME type, arguments).
 */
export interface GeneratedEntry<T> {
  /** What identifies it on the server: a resource's URI, a template's URI template, a prompt's name. */
  readonly key: string;
  /** Its function's name under `resources` or `prompts` of the generated module. */
  readonly identifier: string;
  /** A hash of `definition`. */
  readonly fingerprint: string;
  /** What the fingerprint covers, to say what changed. */
  readonly definition: T;
}

/** What a generated module records of its server's catalogue, to catch drift. */
export interface GeneratedManifest {
  /** The server's name in the config, as `createHost` knows it. */
  readonly server: string;
  /** One hash of every tool's fingerprint: equal when nothing a caller relies on changed. */
  readonly fingerprint: string;
  /** The mcpx version that wrote the module. */
  readonly generator: string;
  /** Every tool the module has a function for, in the order of their names. */
  readonly tools: readonly GeneratedTool[];
  /** The static resources the module has a reader for (`resources.<identifier>`), by URI. */
  readonly resources: readonly GeneratedEntry<Resource>[];
  /** The resource templates the module has a function for (`resources.<identifier>`). */
  readonly resourceTemplates: readonly GeneratedEntry<ResourceTemplateType>[];
  /** The prompts the module has a function for (`prompts.<identifier>`). */
  readonly prompts: readonly GeneratedEntry<Prompt>[];
}

/** A server's catalogue as the host lists it: what a module is generated from and checked against. */
export interface ListedCatalogue {
  readonly tools: readonly Tool[];
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplateType[];
  readonly prompts: readonly Prompt[];
}

/** The part of a definition a fingerprint covers, kept in the manifest. */
function recordedPart(tool: Tool): Tool {
  return {
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
  };
}

/** A resource as its reader relies on it (not its size, which changes with its contents). */
export function recordedResource(resource: Resource): Resource {
  const { uri, name, title, description, mimeType } = resource;
  return defined({ uri, name, title, description, mimeType }) as Resource;
}

/** A resource template as its function relies on it. */
export function recordedTemplate(template: ResourceTemplateType): ResourceTemplateType {
  const { uriTemplate, name, title, description, mimeType } = template;
  return defined({ uriTemplate, name, title, description, mimeType }) as ResourceTemplateType;
}

/** A prompt as its function relies on it: its arguments, and what it says it does. */
export function recordedPrompt(prompt: Prompt): Prompt {
  const { name, title, description } = prompt;
  const args = prompt.arguments?.map(({ name, description, required }) =>
    defined({ name, description, required }),
  );
  return defined({ name, title, description, arguments: args }) as Prompt;
}

const defined = (record: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));

/** The hash of a recorded resource, template or prompt. */
export const entryFingerprint = (definition: unknown): string =>
  createHash('sha256').update(canonicalJson(definition)).digest('hex');

/**
 * One hash of a catalogue: its tools' names and fingerprints, and its resources', templates' and
 * prompts' keys (each marked with what it is) and fingerprints, in order. A server with only tools
 * hashes as it did before resources and prompts were generated.
 */
export function catalogueFingerprint(
  tools: readonly Pick<GeneratedTool, 'name' | 'fingerprint'>[],
  others: Pick<GeneratedManifest, 'resources' | 'resourceTemplates' | 'prompts'> = {
    resources: [],
    resourceTemplates: [],
    prompts: [],
  },
): string {
  const pairs = [
    ...tools.map((t) => [t.name, t.fingerprint]),
    ...others.resources.map((r) => [`resource ${r.key}`, r.fingerprint]),
    ...others.resourceTemplates.map((r) => [`resource template ${r.key}`, r.fingerprint]),
    ...others.prompts.map((p) => [`prompt ${p.key}`, p.fingerprint]),
  ].sort(([a = ''], [b = '']) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(canonicalJson(pairs)).digest('hex');
}

/** Identifiers for a module: tools by name; resources, templates and prompts by key. */
export interface ManifestIdentifiers {
  readonly tools: ReadonlyMap<string, string>;
  readonly resources: ReadonlyMap<string, string>;
  readonly resourceTemplates: ReadonlyMap<string, string>;
  readonly prompts: ReadonlyMap<string, string>;
}

/** The manifest of `catalogue` of `server`, each entry under the identifier `identifiers` gives it. */
export function createManifest(
  server: string,
  catalogue: ListedCatalogue,
  identifiers: ManifestIdentifiers,
  generator: string,
): GeneratedManifest {
  const tools = catalogue.tools.map((tool) => ({
    name: tool.name,
    identifier: identifiers.tools.get(tool.name) ?? tool.name,
    fingerprint: toolFingerprint(tool),
    definition: recordedPart(tool),
  }));
  const entry = <T>(key: string, ids: ReadonlyMap<string, string>, definition: T): GeneratedEntry<T> => ({
    key,
    identifier: ids.get(key) ?? key,
    fingerprint: entryFingerprint(definition),
    definition,
  });
  const others = {
    resources: catalogue.resources.map((r) => entry(r.uri, identifiers.resources, recordedResource(r))),
    resourceTemplates: catalogue.resourceTemplates.map((t) =>
      entry(t.uriTemplate, identifiers.resourceTemplates, recordedTemplate(t)),
    ),
    prompts: catalogue.prompts.map((p) => entry(p.name, identifiers.prompts, recordedPrompt(p))),
  };
  return { server, fingerprint: catalogueFingerprint(tools, others), generator, tools, ...others };
}

/** The line of a generated module that holds its manifest; `readManifest` finds it again. */
export const MANIFEST_PREFIX = 'export const manifest: GeneratedManifest = JSON.parse(';

/**
 * The manifest's line: the JSON inside a string literal given to `JSON.parse`, so that no key a
 * server chose (`__proto__` among them) means anything to the JavaScript that reads it.
 */
export function manifestLine(manifest: GeneratedManifest, literal: (text: string) => string): string {
  return `${MANIFEST_PREFIX}${literal(JSON.stringify(manifest))});\n`;
}

/** The manifest a generated module records, or a typed error naming the file when it has none. */
export function readManifest(source: string, file: string): GeneratedManifest {
  const line = source.split('\n').find((l) => l.startsWith(MANIFEST_PREFIX));
  const fail = (why: string) =>
    new McpxError(ErrorCode.Usage, `${file} is not a module mcpx generate wrote: ${why}`, {
      origin: { file },
      fixes: ['generate it again: mcpx generate <server> --out <file>'],
    });
  if (!line?.endsWith(');')) throw fail('it records no manifest');
  let manifest: unknown;
  try {
    manifest = JSON.parse(JSON.parse(line.slice(MANIFEST_PREFIX.length, -2)) as string);
  } catch {
    throw fail('its manifest does not parse');
  }
  if (!isManifest(manifest)) throw fail('its manifest is not one this version reads');
  // A module written before resources and prompts were generated has none of them.
  return { ...manifest, resources: [], resourceTemplates: [], prompts: [], ...definedLists(manifest) };
}

function definedLists(manifest: GeneratedManifest): Partial<GeneratedManifest> {
  return defined({
    resources: manifest.resources,
    resourceTemplates: manifest.resourceTemplates,
    prompts: manifest.prompts,
  });
}

const isEntryList = (value: unknown): boolean =>
  value === undefined ||
  (Array.isArray(value) &&
    value.every(
      (e: Partial<GeneratedEntry<unknown>> | null) =>
        typeof e?.key === 'string' &&
        typeof e.identifier === 'string' &&
        typeof e.fingerprint === 'string' &&
        typeof e.definition === 'object' &&
        e.definition !== null,
    ));

function isManifest(value: unknown): value is GeneratedManifest {
  const m = value as Partial<GeneratedManifest> | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    typeof m.server === 'string' &&
    typeof m.fingerprint === 'string' &&
    Array.isArray(m.tools) &&
    m.tools.every(
      (t) =>
        typeof t?.name === 'string' &&
        typeof t.identifier === 'string' &&
        typeof t.fingerprint === 'string' &&
        typeof t.definition === 'object' &&
        t.definition !== null,
    ) &&
    isEntryList(m.resources) &&
    isEntryList(m.resourceTemplates) &&
    isEntryList(m.prompts)
  );
}
