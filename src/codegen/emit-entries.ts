import type { Prompt, Resource, ResourceTemplateType } from '@modelcontextprotocol/client';
import { propertyKey } from './identifiers.js';
import type { ManifestIdentifiers } from './manifest.js';
import { commentText, docComment, stringLiteral } from './source-text.js';

/** The resources and prompts part of a generated module: two interfaces and their bindings. */
export interface EntriesCode {
  /** `ServerResources` and `ServerPrompts`, documented. */
  readonly interfaces: string;
  /** The `resources: {…}` and `prompts: {…}` members of `connect`'s object. */
  readonly bindings: string;
  /** The result types the code names (to import only those). */
  readonly uses: { readonly read: boolean; readonly prompt: boolean };
}

/** One variable of a URI template: optional in a query expression (`{?q}`), a list when exploded (`{/path*}`). */
interface TemplateVariable {
  readonly name: string;
  readonly optional: boolean;
  readonly list: boolean;
}

/**
 * The variables of an RFC 6570 template, in order, each once: `{var}` (level 1) and the other
 * levels' operators (`{+var}`, `{#var}`, `{.var}`, `{/var}`, `{;var}`, `{?a,b}`, `{&c}`), with
 * prefix (`:3`) and explode (`*`) modifiers. What expands them is the SDK's `UriTemplate`.
 */
export function templateVariables(template: string): TemplateVariable[] {
  const found = new Map<string, TemplateVariable>();
  for (const [, operator = '', body = ''] of template.matchAll(/\{([+#./;?&]?)([^{}]*)\}/g)) {
    for (const spec of body.split(',')) {
      const name = spec.replace(/(\*|:[0-9]+)$/, '').trim();
      if (name === '') continue;
      const variable = { name, optional: operator === '?' || operator === '&', list: spec.endsWith('*') };
      const known = found.get(name);
      // Named twice: required if any use needs it, a list if any use explodes it.
      found.set(
        name,
        known
          ? { name, optional: known.optional && variable.optional, list: known.list || variable.list }
          : variable,
      );
    }
  }
  return [...found.values()];
}

/** An object type of string members, each documented (prompt arguments, template variables). */
function stringsType(
  members: readonly { name: string; optional: boolean; list?: boolean; doc?: string | undefined }[],
  indent: string,
): string {
  const inner = `${indent}  `;
  const lines = members.map(
    (m) =>
      `${docComment([m.doc], inner)}${inner}${propertyKey(m.name, stringLiteral)}${m.optional ? '?' : ''}: ${m.list ? 'string | string[]' : 'string'};`,
  );
  return lines.length === 0 ? 'Record<string, never>' : `{\n${lines.join('\n')}\n${indent}}`;
}

/** What a resource's doc comment begins with: its title (else its name) and description. */
const about = (entry: { name: string; title?: string | undefined; description?: string | undefined }) => [
  entry.title ?? entry.name,
  entry.description,
];

/**
 * `ServerResources` (a reader per static resource, a function of its variables per template)
 * and `ServerPrompts` (a function per prompt, its arguments typed), with the members of
 * `connect`'s object that call them through `bound`. Names, URIs and descriptions are the
 * server's text: in literals, identifiers and doc comments only.
 */
export function entriesCode(
  server: string,
  catalogue: {
    readonly resources: readonly Resource[];
    readonly resourceTemplates: readonly ResourceTemplateType[];
    readonly prompts: readonly Prompt[];
  },
  identifiers: ManifestIdentifiers,
): EntriesCode {
  const label = commentText(server);
  const resourceMethods: { id: string; line: string; binding: string }[] = [];
  for (const resource of catalogue.resources) {
    const id = identifiers.resources.get(resource.uri) ?? 'resource';
    const doc = docComment(
      [
        ...about(resource),
        `Reads \`${commentText(resource.uri)}\`${resource.mimeType ? ` (${commentText(resource.mimeType)})` : ''} of \`${label}\`.`,
      ],
      '  ',
    );
    resourceMethods.push({
      id,
      line: `${doc}  ${id}(options?: HostCallOptions): Promise<ReadResourceResult>;`,
      binding: `      ${id}: (options) => bound.read(${stringLiteral(resource.uri)}, options),`,
    });
  }
  for (const template of catalogue.resourceTemplates) {
    const id = identifiers.resourceTemplates.get(template.uriTemplate) ?? 'resource';
    const variables = templateVariables(template.uriTemplate);
    const type = stringsType(variables, '  ');
    const optional = variables.every((v) => v.optional);
    const doc = docComment(
      [
        ...about(template),
        `Reads \`${commentText(template.uriTemplate)}\`${template.mimeType ? ` (${commentText(template.mimeType)})` : ''} of \`${label}\`, its variables filled in (percent-encoded).`,
      ],
      '  ',
    );
    resourceMethods.push({
      id,
      line: `${doc}  ${id}(variables${optional ? '?' : ''}: ${type}, options?: HostCallOptions): Promise<ReadResourceResult>;`,
      binding: `      ${id}: (variables, options) => bound.readTemplate(${stringLiteral(template.uriTemplate)}, ${optional ? 'variables ?? {}' : 'variables'}, options),`,
    });
  }
  const promptMethods: { id: string; line: string; binding: string }[] = [];
  for (const prompt of catalogue.prompts) {
    const id = identifiers.prompts.get(prompt.name) ?? 'prompt';
    const args = (prompt.arguments ?? []).map((a) => ({
      name: a.name,
      optional: a.required !== true,
      doc: a.description,
    }));
    const optional = args.every((a) => a.optional);
    const doc = docComment(
      [prompt.title, prompt.description, `Gets the prompt \`${commentText(prompt.name)}\` of \`${label}\`.`],
      '  ',
    );
    promptMethods.push({
      id,
      line: `${doc}  ${id}(args${optional ? '?' : ''}: ${stringsType(args, '  ')}, options?: HostCallOptions): Promise<GetPromptResult>;`,
      binding: `      ${id}: (args, options) => bound.prompt(${stringLiteral(prompt.name)}, args, options),`,
    });
  }
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  resourceMethods.sort(byId);
  promptMethods.sort(byId);
  const interfaces = [
    `${docComment([`The resources of \`${label}\`: a reader per resource, a function of its variables per resource template.`])}export interface ServerResources {`,
    ...resourceMethods.map((m) => m.line),
    '}',
    '',
    `${docComment([`The prompts of \`${label}\`, each one typed function.`])}export interface ServerPrompts {`,
    ...promptMethods.map((m) => m.line),
    '}',
    '',
  ].join('\n');
  const bindings = [
    '    resources: {',
    ...resourceMethods.map((m) => m.binding),
    '    },',
    '    prompts: {',
    ...promptMethods.map((m) => m.binding),
    '    },',
  ].join('\n');
  return {
    interfaces,
    bindings,
    uses: { read: resourceMethods.length > 0, prompt: promptMethods.length > 0 },
  };
}
