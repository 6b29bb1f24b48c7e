import { usageError } from './global-options.js';

/**
 * `key=value` pairs (a value that parses as JSON is JSON, else a string) or a
 * single JSON object. `message=hi` → "hi", `n=3` → 3, `tags=["a"]` → ["a"],
 * `flag=true` → true; quote to keep a string: `id='"007"'`.
 */
export function parseToolArguments(raw: readonly string[]): Record<string, unknown> {
  if (raw.length === 0) return {};
  const first = raw[0]?.trim() ?? '';
  if (raw.length === 1 && first.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(first);
    } catch (error) {
      throw usageError(
        `the arguments are not valid JSON: ${(error as Error).message}`,
        `pass one JSON object, e.g. '{"message": "hi"}', or key=value pairs`,
      );
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw usageError('the JSON arguments must be an object', `e.g. '{"message": "hi"}'`);
    }
    return parsed as Record<string, unknown>;
  }
  const args: Record<string, unknown> = {};
  for (const pair of raw) {
    const eq = pair.indexOf('=');
    if (eq <= 0) {
      throw usageError(
        `'${pair}' is not a key=value pair`,
        `write arguments as key=value (e.g. message=hi) or as one JSON object`,
      );
    }
    const key = pair.slice(0, eq);
    if (Object.hasOwn(args, key)) throw usageError(`argument '${key}' is given twice`);
    args[key] = parseValue(pair.slice(eq + 1));
  }
  return args;
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `server.tool` → its parts; the server name never contains a dot, the tool may. */
export function splitTarget(target: string): { server: string; name: string } | undefined {
  const dot = target.indexOf('.');
  if (dot <= 0 || dot === target.length - 1) return undefined;
  return { server: target.slice(0, dot), name: target.slice(dot + 1) };
}
