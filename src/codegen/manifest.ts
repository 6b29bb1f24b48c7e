import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';
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

/** One hash of a catalogue: its tools' names and fingerprints, in name order. */
export function catalogueFingerprint(tools: readonly Pick<GeneratedTool, 'name' | 'fingerprint'>[]): string {
  const pairs = tools
    .map((t) => [t.name, t.fingerprint])
    .sort(([a = ''], [b = '']) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(canonicalJson(pairs)).digest('hex');
}

/** The manifest of `tools` of `server`, each under the identifier `identifiers` gives it. */
export function createManifest(
  server: string,
  tools: readonly Tool[],
  identifiers: ReadonlyMap<string, string>,
  generator: string,
): GeneratedManifest {
  const generated = tools.map((tool) => ({
    name: tool.name,
    identifier: identifiers.get(tool.name) ?? tool.name,
    fingerprint: toolFingerprint(tool),
    definition: recordedPart(tool),
  }));
  return { server, fingerprint: catalogueFingerprint(generated), generator, tools: generated };
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
  return manifest;
}

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
    )
  );
}
