import { suggest } from '../../config/loading.js';
import { exactNumber, parseExactJson } from './exact-json.js';
import { type JsonType, shapeOf } from './schema-shape.js';

export type TypedValue =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: string; readonly suggestion?: string };

/**
 * The value of one `key=value` word, typed by the property's schema:
 * - `string`: the text exactly as written (`007`, `9194137`, twenty digits);
 * - `number`/`integer`: parsed, refused when it is not one or a double would change it;
 * - `boolean`: `true` or `false`; `null` where the schema allows it;
 * - `array`/`object`: JSON;
 * - a union (`anyOf`/`oneOf`/type array) tries null, boolean, number, JSON, then string; a
 *   JSON string literal (`'"123"'`) forces the string where a number is also allowed;
 * - `enum`/`const`: one of the listed values, with a did-you-mean;
 * - no type at all: JSON where it parses exactly, else the text (the rule without a schema).
 */
export function typeValue(text: string, schema: unknown, root: unknown): TypedValue {
  const shape = shapeOf(schema, root);
  if (shape.any) return untypedValue(text);
  if (shape.values) return oneOf(text, shape.values);
  const types = shape.types;
  const trimmed = types.has('string') ? text : text.trim();
  if (types.has('null') && trimmed === 'null') return { ok: true, value: null };
  if (types.has('boolean') && (trimmed === 'true' || trimmed === 'false')) {
    return { ok: true, value: trimmed === 'true' };
  }
  let problem: string | undefined;
  if (types.has('number') || types.has('integer')) {
    const n = exactNumber(trimmed);
    if (n.ok && (types.has('number') || Number.isInteger(n.value))) return { ok: true, value: n.value };
    problem = !n.ok
      ? n.reason === 'inexact'
        ? `${shown(trimmed)} has more digits than a JSON number carries exactly (it would arrive as ${String(n.nearest)})`
        : `'${shown(trimmed)}' is not ${types.has('number') ? 'a number' : 'an integer'}`
      : `'${shown(trimmed)}' is not an integer`;
  }
  const opens = trimmed.startsWith('[') ? 'array' : trimmed.startsWith('{') ? 'object' : undefined;
  if (opens && types.has(opens)) {
    const parsed = parseExactJson(trimmed);
    if (parsed.ok && jsonTypeOf(parsed.value) === opens) return { ok: true, value: parsed.value };
    problem ??= `not valid JSON: ${parsed.ok ? `expected a JSON ${opens}` : parsed.message}`;
  }
  if (types.has('string')) {
    const others = [...types].some((t) => t !== 'string');
    if (others && /^".*"$/s.test(text)) {
      const parsed = parseExactJson(text);
      if (parsed.ok && typeof parsed.value === 'string') return { ok: true, value: parsed.value };
    }
    return { ok: true, value: text };
  }
  return { ok: false, problem: problem ?? expectation(trimmed, types) };
}

/** The rule without a schema: JSON where it parses (numbers exactly), else the text as it is. */
export function untypedValue(text: string): TypedValue {
  const parsed = parseExactJson(text);
  if (parsed.ok) return { ok: true, value: parsed.value };
  if (parsed.inexact !== undefined) {
    return {
      ok: false,
      problem: `${parsed.message}; to send it as text, quote it as JSON: '"${text.replace(/"/g, '\\"')}"'`,
    };
  }
  return { ok: true, value: text };
}

function oneOf(text: string, values: readonly unknown[]): TypedValue {
  const trimmed = text.trim();
  for (const value of values) {
    if (typeof value === 'string' ? value === text || JSON.stringify(value) === trimmed : false) {
      return { ok: true, value };
    }
    if (typeof value === 'number') {
      const n = exactNumber(trimmed);
      if (n.ok && n.value === value) return { ok: true, value };
    } else if (typeof value !== 'string' && JSON.stringify(value) === trimmed) {
      return { ok: true, value };
    }
  }
  const names = values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  const guess = suggest(text, names);
  return {
    ok: false,
    problem: `'${shown(text)}' is not one of ${names.slice(0, 12).join(', ')}${names.length > 12 ? `, … (${names.length} values)` : ''}${guess ? ` — did you mean '${guess}'?` : ''}`,
    ...(guess ? { suggestion: guess } : {}),
  };
}

function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'number' ? 'number' : (typeof value as JsonType);
}

/** A value as quoted back in a message: a whole file read with @ would drown the error. */
function shown(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

function expectation(value: string, types: ReadonlySet<JsonType>): string {
  const text = shown(value);
  const list = [...types];
  if (list.length === 1 && list[0] === 'boolean') return `'${text}' is not true or false`;
  if (list.length === 1 && list[0] === 'array') return `'${text}' is not a JSON array (e.g. '["a","b"]')`;
  if (list.length === 1 && list[0] === 'object') return `'${text}' is not a JSON object (e.g. '{"k":"v"}')`;
  if (list.length === 1 && list[0] === 'null') return `'${text}' is not null`;
  return `'${text}' is not ${list.join(' or ')}`;
}
