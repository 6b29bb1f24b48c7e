import { suggest } from '../../config/loading.js';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { parseExactJson } from './exact-json.js';
import { resolveRef, type SchemaNode, shapeOf } from './schema-shape.js';
import { typeValue, untypedValue } from './type-value.js';

/** One argument word, as written: `key=value`, `key=@file`, a JSON object, or `-` (stdin). */
export type ArgumentWord =
  | { readonly kind: 'pair'; readonly key: string; readonly text: string }
  | { readonly kind: 'file'; readonly key: string; readonly path: string }
  | { readonly kind: 'json'; readonly text: string }
  | { readonly kind: 'stdin' };

/** `key=value` with its text resolved (`from` names the file it was read from). */
export interface ArgumentPair {
  readonly key: string;
  readonly text: string;
  readonly from?: string;
}

/** Words with their files and stdin read: JSON objects merged in order, then the pairs. */
export interface ResolvedArguments {
  readonly base: Readonly<Record<string, unknown>>;
  readonly pairs: readonly ArgumentPair[];
}

/** Where `@file` and `-` come from; the CLI reads the disk and stdin, the shell may not. */
export interface ArgumentSources {
  readFile?(path: string): Promise<string>;
  readStdin?(): Promise<string>;
}

export interface ArgumentProblem {
  /** The argument at fault; absent for the whole set. */
  readonly key?: string;
  readonly message: string;
  /** A did-you-mean: the key or value probably meant. */
  readonly suggestion?: string;
}

export type TypedArguments =
  | { readonly ok: true; readonly args: Record<string, unknown> }
  | { readonly ok: false; readonly problems: readonly ArgumentProblem[] };

function invalid(message: string, fixes: string[] = []): McpxError {
  return new McpxError(ErrorCode.InvalidArguments, message, { fixes });
}

/**
 * Splits argument words. `key=value` (the value may contain `=`), `key=@path` reads a file,
 * `key=@@text` is the literal `@text`, a word starting with `{` is a JSON object, `-` is a JSON
 * object on stdin. Throws INVALID_ARGUMENTS for anything else, or a key given twice.
 */
export function parseArgumentWords(words: readonly string[]): ArgumentWord[] {
  const seen = new Set<string>();
  let stdin = false;
  return words.map((word): ArgumentWord => {
    if (word.trimStart().startsWith('{')) return { kind: 'json', text: word };
    if (word === '-') {
      if (stdin) throw invalid("'-' (read a JSON object from stdin) is given twice");
      stdin = true;
      return { kind: 'stdin' };
    }
    const eq = word.indexOf('=');
    if (eq <= 0) {
      throw invalid(`'${word}' is not a key=value pair`, [
        `write arguments as key=value (e.g. message=hi), as one JSON object, or '-' to read one from stdin`,
      ]);
    }
    const key = word.slice(0, eq);
    if (seen.has(key)) throw invalid(`argument '${key}' is given twice`);
    seen.add(key);
    const value = word.slice(eq + 1);
    if (value.startsWith('@@')) return { kind: 'pair', key, text: value.slice(1) };
    if (value.startsWith('@') && value.length > 1) return { kind: 'file', key, path: value.slice(1) };
    return { kind: 'pair', key, text: value };
  });
}

/**
 * Reads the files and stdin the words name and parses the JSON objects (numbers kept exact).
 * A `key=value` given after a JSON object replaces that object's key.
 */
export async function readArgumentSources(
  words: readonly ArgumentWord[],
  sources: ArgumentSources,
): Promise<ResolvedArguments> {
  const base: Record<string, unknown> = {};
  const pairs: ArgumentPair[] = [];
  for (const word of words) {
    if (word.kind === 'pair') pairs.push({ key: word.key, text: word.text });
    else if (word.kind === 'file') {
      if (!sources.readFile) throw invalid(`'${word.key}=@${word.path}': files cannot be read here`);
      let text: string;
      try {
        text = await sources.readFile(word.path);
      } catch (error) {
        throw invalid(
          `cannot read '${word.path}' for ${word.key}=@${word.path}: ${(error as Error).message}`,
          [`to send the text '@${word.path}' itself, write ${word.key}=@@${word.path}`],
        );
      }
      pairs.push({ key: word.key, text, from: word.path });
    } else {
      const where = word.kind === 'stdin' ? 'stdin' : 'the JSON argument';
      if (word.kind === 'stdin' && !sources.readStdin) throw invalid("'-' cannot read stdin here");
      const text = word.kind === 'stdin' ? await (sources.readStdin as () => Promise<string>)() : word.text;
      const parsed = parseExactJson(text);
      if (!parsed.ok) {
        throw invalid(`${where} is not valid JSON: ${parsed.message}`, [
          parsed.inexact === undefined
            ? `pass one JSON object, e.g. '{"message": "hi"}', or key=value pairs`
            : `quote the number to send it as text: "${parsed.inexact}"`,
        ]);
      }
      if (parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
        throw invalid(`${where} must be a JSON object`, [`e.g. '{"message": "hi"}'`]);
      }
      Object.assign(base, parsed.value);
    }
  }
  return { base, pairs };
}

/**
 * Types resolved arguments by a tool's input schema (see `typeValue` for each value), and
 * catches missing required keys and keys the schema does not know (unless it allows
 * `additionalProperties`), with did-you-means. Without a schema, values are JSON where they
 * parse exactly, else text, and nothing else is checked. Pure: reads nothing, throws nothing.
 */
export function typeArguments(resolved: ResolvedArguments, inputSchema: object | undefined): TypedArguments {
  const args: Record<string, unknown> = { ...resolved.base };
  const problems: ArgumentProblem[] = [];
  const root = inputSchema;
  const schema = inputSchema ? resolveRef(inputSchema, root) : undefined;
  const properties = (schema && isNode(schema.properties) ? schema.properties : {}) as Record<
    string,
    unknown
  >;
  for (const pair of resolved.pairs) {
    const property = Object.hasOwn(properties, pair.key) ? properties[pair.key] : additional(schema);
    const typed =
      property === undefined
        ? untypedValue(pair.text)
        : typeValue(
            pair.from !== undefined && !takesString(property, root) ? pair.text.trim() : pair.text,
            property,
            root,
          );
    if (typed.ok) args[pair.key] = typed.value;
    else {
      problems.push({
        key: pair.key,
        message: `${pair.key}${pair.from === undefined ? '' : ` (from ${pair.from})`}: ${typed.problem}`,
        ...(typed.suggestion ? { suggestion: typed.suggestion } : {}),
      });
    }
  }
  if (schema) {
    const known = Object.keys(properties);
    // A schema that declares its properties (even none) names every key it takes.
    if (closed(schema) && isNode(schema.properties)) {
      for (const key of Object.keys(args)) {
        if (Object.hasOwn(properties, key)) continue;
        const guess = suggest(
          key,
          known.filter((k) => !Object.hasOwn(args, k)),
        );
        problems.push({
          key,
          message: `'${key}' is not a parameter${guess ? ` — did you mean '${guess}'?` : known.length > 0 ? ` (it takes ${known.join(', ')})` : ' (it takes none)'}`,
          ...(guess ? { suggestion: guess } : {}),
        });
      }
    }
    const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
    for (const key of required) {
      if (typeof key !== 'string' || Object.hasOwn(args, key) || problems.some((p) => p.key === key))
        continue;
      problems.push({ key, message: `missing required argument '${key}'` });
    }
  }
  return problems.length === 0 ? { ok: true, args } : { ok: false, problems };
}

/**
 * Prompt arguments are strings by the spec: each is sent as typed (`id=007`),
 * a JSON object's scalars as their text; a nested array or object is refused.
 */
export function promptArguments(resolved: ResolvedArguments): Record<string, string> {
  const args: Record<string, string> = {};
  for (const [key, value] of Object.entries(resolved.base)) {
    if (value !== null && typeof value === 'object') {
      throw invalid(
        `prompt argument '${key}' must be a string, not JSON ${Array.isArray(value) ? 'array' : 'object'}`,
        [`write it as ${key}=text`],
      );
    }
    args[key] = String(value);
  }
  for (const pair of resolved.pairs) args[pair.key] = pair.text;
  return args;
}

/** The problems as one INVALID_ARGUMENTS error naming the server and tool. */
export function argumentsError(
  problems: readonly ArgumentProblem[],
  server: string,
  tool: string,
  helpCommand = `mcpx tools ${server}.${tool}`,
): McpxError {
  const [first, ...rest] = problems;
  const message =
    rest.length === 0
      ? `wrong arguments for ${tool}: ${first?.message ?? 'invalid'}`
      : `${problems.length} problems with the arguments for ${tool}: ${problems.map((p) => p.message).join('; ')}`;
  return new McpxError(ErrorCode.InvalidArguments, message, {
    server,
    tool,
    causes: problems.map((p) => p.message),
    fixes: [`run \`${helpCommand}\` to see its parameters`],
  });
}

/**
 * Everything in one step for a front end: words → sources read → typed, or an
 * INVALID_ARGUMENTS error.
 */
export async function buildToolArguments(
  words: readonly string[],
  inputSchema: object | undefined,
  target: { server: string; tool: string; sources?: ArgumentSources },
): Promise<Record<string, unknown>> {
  const resolved = await readArgumentSources(parseArgumentWords(words), target.sources ?? {});
  const typed = typeArguments(resolved, inputSchema);
  if (!typed.ok) throw argumentsError(typed.problems, target.server, target.tool);
  return typed.args;
}

function isNode(value: unknown): value is SchemaNode {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Whether keys beyond `properties` are refused: yes unless the schema explicitly allows them. */
function closed(schema: SchemaNode): boolean {
  const extra = schema.additionalProperties;
  return !(extra === true || isNode(extra) || isNode(schema.patternProperties));
}

function additional(schema: SchemaNode | undefined): unknown {
  return schema && isNode(schema.additionalProperties) ? schema.additionalProperties : undefined;
}

function takesString(property: unknown, root: unknown): boolean {
  const shape = shapeOf(property, root);
  return shape.types.has('string') || (shape.values ?? []).some((v) => typeof v === 'string');
}
