import type { Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/client';
import { entriesCode } from './emit-entries.js';
import { assignByKey, assignFileNames, assignIdentifiers, typeNameFor } from './identifiers.js';
import {
  createManifest,
  type GeneratedManifest,
  type ManifestIdentifiers,
  manifestLine,
} from './manifest.js';
import { schemaType } from './schema-type.js';
import { commentText, docComment, stringLiteral } from './source-text.js';

/** What `generateModule` is given: one server's tools, resources and prompts as the host lists them. */
export interface GenerateModuleOptions {
  /** The server's name in the config: the module calls it by this name. */
  readonly server: string;
  readonly tools: readonly Tool[];
  /** Its static resources: a reader each, under `resources`. */
  readonly resources?: readonly Resource[];
  /** Its resource templates: a function of the template's variables each, under `resources`. */
  readonly resourceTemplates?: readonly ResourceTemplateType[];
  /** Its prompts: a function each, under `prompts`. */
  readonly prompts?: readonly Prompt[];
  /** The mcpx version writing it, recorded in the manifest. */
  readonly generator: string;
  /** Where the module imports mcpx from (default `mcpx`). */
  readonly importFrom?: string;
  /**
   * `module` (default): one file. `tree`: an index (the manifest, `ServerTools`, `connect`) and
   * one small file per tool (its `Args`, `Result` and `Call` types and its doc comment), so that
   * an agent writing code reads only the tools it needs.
   */
  readonly layout?: 'module' | 'tree';
}

/** A generated module: its text, and the manifest it records. */
export interface GeneratedModule {
  /** The module (with `tree`, its index). */
  readonly source: string;
  readonly manifest: GeneratedManifest;
  /**
   * With `tree`: each tool's file, by its name beside the index (`<identifier>.ts`, made distinct
   * on a case-insensitive file system: `assignFileNames`).
   */
  readonly toolFiles: ReadonlyMap<string, string>;
}

/** The names `connect`'s object keeps for itself: no tool's function takes them. */
const NAMESPACES = ['resources', 'prompts'];

/** What the first lines of every tool's file of a tree say: how regenerating knows its own files. */
export const TOOL_FILE_MARK = 'as `mcpx generate` wrote it';

/** The index's line listing the files written beside it: what regenerating may remove. */
export const FILES_PREFIX = 'export const generatedFiles: readonly string[] = JSON.parse(';

const hasRequired = (tool: Tool): boolean =>
  Array.isArray(tool.inputSchema?.required) && tool.inputSchema.required.length > 0;

/**
 * One TypeScript module for one server: per tool an `…Args` type from its input schema (and a
 * `…Result` type from its output schema, when it declares one), the `ServerTools` interface
 * with one documented method per tool, `connect(host)` that binds them to a host
 * (`boundTools`), and the manifest (the catalogue's fingerprints) that catches drift. Every
 * name, description and schema is a server's untrusted text: names reach the code only as
 * string literals or mapped identifiers, descriptions only inside doc comments they cannot end.
 */
export function generateModule(options: GenerateModuleOptions): GeneratedModule {
  const { server } = options;
  const tree = options.layout === 'tree';
  const tools = [...options.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const catalogue = {
    tools,
    resources: sortedBy(options.resources ?? [], (r) => r.uri),
    resourceTemplates: sortedBy(options.resourceTemplates ?? [], (t) => t.uriTemplate),
    prompts: sortedBy(options.prompts ?? [], (p) => p.name),
  };
  const all = moduleIdentifiers(catalogue);
  const identifiers = all.tools;
  const manifest = createManifest(server, catalogue, all, options.generator);
  const entries = entriesCode(server, catalogue, all);
  const fileNames = assignFileNames([...identifiers.values()]);
  const from = stringLiteral(options.importFrom ?? 'mcpx');
  const types: string[] = [];
  const imports: string[] = [];
  const methods: string[] = [];
  const bindings: string[] = [];
  const toolFiles = new Map<string, string>();
  for (const tool of tools) {
    const id = identifiers.get(tool.name) ?? 'tool';
    const parts = toolParts(tool, server, tree ? '' : typeNameFor(id));
    const signature = `(${parts.args}, options?: HostCallOptions): Promise<${parts.returns}>`;
    if (tree) {
      // Each tool's types in a file of its own, reached from the index as a namespace (`$id`):
      // no tool's name can clash with another's types or with the index's own names.
      const file = fileNames.get(id) ?? `${id}.ts`;
      toolFiles.set(
        file,
        [
          `${docComment([`\`${commentText(tool.name)}\` of \`${commentText(server)}\`, ${TOOL_FILE_MARK}; the call is \`connect(host).${id}\` of ./index.js.`]).trimEnd()}`,
          '',
          `import type { ${parts.structured ? '' : 'CallToolResult, '}HostCallOptions } from ${from};`,
          '',
          ...parts.types,
          `${parts.doc}export type Call = ${signature.replace('): Promise', ') => Promise')};`,
          '',
        ].join('\n'),
      );
      imports.push(`import type * as $${id} from ${stringLiteral(`./${file.replace(/\.ts$/, '.js')}`)};`);
      const qualified = toolParts(tool, server, `$${id}.`);
      methods.push(
        `${indented(qualified.doc)}  ${id}(${qualified.args}, options?: HostCallOptions): Promise<${qualified.returns}>;`,
      );
      bindings.push(binding(id, tool.name, qualified));
    } else {
      types.push(...parts.types);
      methods.push(`${indented(parts.doc)}  ${id}${signature};`);
      bindings.push(binding(id, tool.name, parts));
    }
  }
  const source = [
    docComment([
      `Typed calls to the tools of the MCP server \`${commentText(server)}\`, written by mcpx ${options.generator} (\`mcpx generate\`). Do not edit: generate again when the server changes; \`mcpx generate --check\` tells when it has.`,
      'Every call goes through the host (`createHost`): trust, the permission policy, consent, the audit log, traces and the keep-alive daemon apply as to any call it makes.',
      `Catalogue fingerprint: ${manifest.fingerprint}`,
    ]).trimEnd(),
    '',
    `import { type BindOptions, boundTools, type CallToolResult, ${entries.uses.prompt ? 'type GetPromptResult, ' : ''}type GeneratedManifest, type Host, type HostCallOptions${entries.uses.read ? ', type ReadResourceResult' : ''} } from ${from};`,
    ...imports,
    '',
    ...types,
    docComment([`The tools of \`${commentText(server)}\`, each one typed call.`]) +
      `export interface ServerTools {\n${methods.join('\n')}\n}`,
    '',
    entries.interfaces,
    docComment([
      `The tools of \`${commentText(server)}\` as methods, its resources under \`resources\`, its prompts under \`prompts\`.`,
    ]) +
      'export interface Server extends ServerTools {\n  readonly resources: ServerResources;\n  readonly prompts: ServerPrompts;\n}',
    '',
    docComment([
      'What the module was generated from: each tool, resource, resource template and prompt with its fingerprint. A call whose tool changed since is refused unless `allowChanged`.',
    ]).trimEnd(),
    manifestLine(manifest, stringLiteral),
    ...(tree
      ? [
          docComment([
            'The files `mcpx generate` wrote beside this index: generating again removes those of tools that are gone, and no other file.',
          ]).trimEnd(),
          `${FILES_PREFIX}${stringLiteral(JSON.stringify([...toolFiles.keys()]))});\n`,
        ]
      : []),
    `${docComment([`The tools, resources and prompts of \`${commentText(server)}\`, bound to \`host\`.`])}export function connect(host: Host, options?: BindOptions): Server {`,
    '  const bound = boundTools(host, manifest, options);',
    '  return {',
    ...bindings,
    entries.bindings,
    '  };',
    '}',
    '',
  ].join('\n');
  return { source, manifest, toolFiles };
}

/** One tool's pieces of code: its types (named after `prefix`), its parameter, its return type and its doc comment. */
interface ToolParts {
  readonly types: readonly string[];
  readonly args: string;
  readonly returns: string;
  readonly structured: boolean;
  readonly doc: string;
}

/**
 * A tool's types and signature pieces. `prefix` names its types: `GetItem` gives `GetItemArgs`
 * (one module), `''` gives `Args` (its own file), `$getItem.` refers to that file's `Args`.
 */
function toolParts(tool: Tool, server: string, prefix: string): ToolParts {
  const label = commentText(tool.name);
  const structured = tool.outputSchema !== undefined;
  const types = [
    `${docComment([`The arguments of \`${label}\`.`])}export type ${prefix}Args = ${schemaType(tool.inputSchema)};\n`,
    ...(structured
      ? [
          `${docComment([`What \`${label}\` returns: its structured content.`])}export type ${prefix}Result = ${schemaType(tool.outputSchema)};\n`,
        ]
      : []),
  ];
  return {
    types,
    args: hasRequired(tool) ? `args: ${prefix}Args` : `args?: ${prefix}Args`,
    returns: structured ? `${prefix}Result` : 'CallToolResult',
    structured,
    doc: docComment([
      tool.description,
      `Calls \`${label}\` of \`${commentText(server)}\`${structured ? '; a tool error is thrown' : ''}.`,
    ]),
  };
}

const indented = (doc: string): string =>
  doc
    .split('\n')
    .map((line) => (line === '' ? line : `  ${line}`))
    .join('\n');

/** The method of `connect`'s object: the tool's real name as a literal, and how its result comes back. */
function binding(id: string, name: string, parts: ToolParts): string {
  const literal = stringLiteral(name);
  return parts.structured
    ? `    ${id}: (args, options) => bound.structured<${parts.returns}>(${literal}, args, options),`
    : `    ${id}: (args, options) => bound.call(${literal}, args, options),`;
}

const sortedBy = <T>(items: readonly T[], key: (item: T) => string): T[] =>
  [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

/** Resources' and templates' identifiers, from one numbering keyed `r<uri>` and `t<template>`. */
function splitResources(
  ids: ReadonlyMap<string, string>,
): Pick<ManifestIdentifiers, 'resources' | 'resourceTemplates'> {
  const resources = new Map<string, string>();
  const resourceTemplates = new Map<string, string>();
  for (const [key, id] of ids) (key.startsWith('r') ? resources : resourceTemplates).set(key.slice(1), id);
  return { resources, resourceTemplates };
}

/**
 * Every function's name: tools by the documented rule (never `resources` or `prompts`, the
 * namespaces); resources and templates in one numbering, as they share `resources`; prompts.
 */
function moduleIdentifiers(catalogue: {
  readonly tools: readonly Tool[];
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplateType[];
  readonly prompts: readonly Prompt[];
}): ManifestIdentifiers {
  return {
    tools: assignIdentifiers(
      catalogue.tools.map((t) => t.name),
      NAMESPACES,
    ),
    ...splitResources(
      assignByKey([
        ...catalogue.resources.map((r) => ({ key: `r${r.uri}`, name: r.name })),
        ...catalogue.resourceTemplates.map((t) => ({ key: `t${t.uriTemplate}`, name: t.name })),
      ]),
    ),
    prompts: assignByKey(catalogue.prompts.map((p) => ({ key: p.name, name: p.name }))),
  };
}
