import type { Tool } from '@modelcontextprotocol/client';
import { assignIdentifiers, typeNameFor } from './identifiers.js';
import { createManifest, type GeneratedManifest, manifestLine } from './manifest.js';
import { schemaType } from './schema-type.js';
import { commentText, docComment, stringLiteral } from './source-text.js';

/** What `generateModule` is given: one server's tools as the host lists them. */
export interface GenerateModuleOptions {
  /** The server's name in the config: the module calls it by this name. */
  readonly server: string;
  readonly tools: readonly Tool[];
  /** The mcpx version writing it, recorded in the manifest. */
  readonly generator: string;
  /** Where the module imports mcpx from (default `mcpx`). */
  readonly importFrom?: string;
}

/** A generated module: its text, and the manifest it records. */
export interface GeneratedModule {
  readonly source: string;
  readonly manifest: GeneratedManifest;
}

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
  const tools = [...options.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const identifiers = assignIdentifiers(tools.map((t) => t.name));
  const manifest = createManifest(server, tools, identifiers, options.generator);
  const types: string[] = [];
  const methods: string[] = [];
  const bindings: string[] = [];
  for (const tool of tools) {
    const id = identifiers.get(tool.name) ?? 'tool';
    const typeName = typeNameFor(id);
    const literal = stringLiteral(tool.name);
    const label = commentText(tool.name);
    types.push(
      `${docComment([`The arguments of \`${label}\`.`])}export type ${typeName}Args = ${schemaType(tool.inputSchema)};\n`,
    );
    const structured = tool.outputSchema !== undefined;
    if (structured) {
      types.push(
        `${docComment([`What \`${label}\` returns: its structured content.`])}export type ${typeName}Result = ${schemaType(tool.outputSchema)};\n`,
      );
    }
    const returns = structured ? `${typeName}Result` : 'CallToolResult';
    const args = hasRequired(tool) ? `args: ${typeName}Args` : `args?: ${typeName}Args`;
    methods.push(
      `${docComment([tool.description, `Calls \`${label}\` of \`${commentText(server)}\`${structured ? '; a tool error is thrown' : ''}.`], '  ')}  ${id}(${args}, options?: HostCallOptions): Promise<${returns}>;`,
    );
    bindings.push(
      structured
        ? `    ${id}: (args, options) => bound.structured<${returns}>(${literal}, args, options),`
        : `    ${id}: (args, options) => bound.call(${literal}, args, options),`,
    );
  }
  const from = stringLiteral(options.importFrom ?? 'mcpx');
  const source = [
    docComment([
      `Typed calls to the tools of the MCP server \`${commentText(server)}\`, written by mcpx ${options.generator} (\`mcpx generate\`). Do not edit: generate again when the server changes; \`mcpx generate --check\` tells when it has.`,
      'Every call goes through the host (`createHost`): trust, the permission policy, consent, the audit log, traces and the keep-alive daemon apply as to any call it makes.',
      `Catalogue fingerprint: ${manifest.fingerprint}`,
    ]).trimEnd(),
    '',
    `import { type BindOptions, boundTools, type CallToolResult, type GeneratedManifest, type Host, type HostCallOptions } from ${from};`,
    '',
    ...types,
    docComment([`The tools of \`${commentText(server)}\`, each one typed call.`]) +
      `export interface ServerTools {\n${methods.join('\n')}\n}`,
    '',
    docComment([
      'What the module was generated from: each tool with its fingerprint. A call whose tool changed since is refused unless `allowChanged`.',
    ]).trimEnd(),
    manifestLine(manifest, stringLiteral),
    `${docComment([`The tools of \`${commentText(server)}\`, bound to \`host\`.`])}export function connect(host: Host, options?: BindOptions): ServerTools {`,
    '  const bound = boundTools(host, manifest, options);',
    '  return {',
    ...bindings,
    '  };',
    '}',
    '',
  ].join('\n');
  return { source, manifest };
}
