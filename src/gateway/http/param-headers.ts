/**
 * SEP-2243 (2026-07-28): a tool may mark primitive arguments with `x-mcp-header`, and a
 * Streamable HTTP client then mirrors them into `Mcp-Param-{Name}` headers so proxies can
 * route on them. A server must refuse a request whose headers and body disagree. The SDK
 * checks this only for an `McpServer`'s own tools; the gateway re-serves upstream tools
 * through the low-level `Server`, so it checks here, against the served tool's schema.
 */

const PREFIX = 'Mcp-Param-';
const BASE64_OPEN = '=?base64?';
const BASE64_CLOSE = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CANONICAL_DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Header/body disagreement: JSON-RPC `HeaderMismatch`, answered with HTTP 400. */
export const HEADER_MISMATCH = -32020;

export interface ParamHeader {
  /** `{Name}` of `Mcp-Param-{Name}`. */
  readonly name: string;
  /** The argument's path through nested `properties`. */
  readonly path: readonly string[];
  readonly type: string | undefined;
}

/** Each served schema's declarations, found once: a tool's schema object lives as long as its listing. */
const declaredBySchema = new WeakMap<object, readonly ParamHeader[]>();

/** `paramHeaders` of a schema, remembered per schema object (asked on every 2026-07-28 call). */
export function declaredParamHeaders(schema: unknown): readonly ParamHeader[] {
  if (typeof schema !== 'object' || schema === null) return [];
  let declared = declaredBySchema.get(schema);
  if (!declared) {
    declared = paramHeaders(schema);
    declaredBySchema.set(schema, declared);
  }
  return declared;
}

/** The `x-mcp-header` declarations of an input schema, on the chain of `properties` only. */
export function paramHeaders(schema: unknown, path: readonly string[] = []): ParamHeader[] {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  if (!properties || typeof properties !== 'object') return [];
  return Object.entries(properties as Record<string, unknown>).flatMap(([key, property]) => {
    if (!property || typeof property !== 'object') return [];
    const { 'x-mcp-header': name, type } = property as { 'x-mcp-header'?: unknown; type?: unknown };
    const here = [...path, key];
    if (typeof name === 'string' && name !== '')
      return [{ name, path: here, type: typeof type === 'string' ? type : undefined }];
    return paramHeaders(property, here);
  });
}

/**
 * Why the `Mcp-Param-*` headers disagree with the call's arguments, or undefined when
 * they agree. An argument that is absent or null expects no header.
 */
export function paramHeaderMismatch(
  declared: readonly ParamHeader[],
  args: unknown,
  headers: { get(name: string): string | null },
): { header: string; reason: string } | undefined {
  for (const { name, path, type } of declared) {
    const header = `${PREFIX}${name}`;
    const value = path.reduce<unknown>(
      (node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
      args,
    );
    if (value === undefined || value === null) continue;
    if (!['string', 'number', 'boolean'].includes(typeof value)) continue;
    const sent = headers.get(header);
    const argument = `${path.join('.')}=${JSON.stringify(value)}`;
    if (sent === null)
      return { header, reason: `the body carries ${argument} but the ${header} header is absent` };
    const decoded = decode(sent);
    if (decoded === undefined)
      return { header, reason: `the ${header} header carries an invalid Base64 value` };
    const numeric = (type === 'integer' || type === 'number') && typeof value === 'number';
    const equal =
      numeric && CANONICAL_DECIMAL.test(decoded) ? Number(decoded) === value : decoded === String(value);
    if (!equal)
      return {
        header,
        reason: `the ${header} header says ${JSON.stringify(decoded)} but the body carries ${argument}`,
      };
  }
  return undefined;
}

/** A header value, or the UTF-8 text inside its `=?base64?…?=` form (undefined if malformed). */
function decode(value: string): string | undefined {
  if (!(value.startsWith(BASE64_OPEN) && value.endsWith(BASE64_CLOSE))) return value;
  const payload = value.slice(BASE64_OPEN.length, value.length - BASE64_CLOSE.length);
  if (!CANONICAL_BASE64.test(payload)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
}
