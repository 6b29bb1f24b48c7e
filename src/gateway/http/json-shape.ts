/** How deep and how large a request's JSON may be before the gateway parses it. */
export interface JsonShapeLimits {
  /** Deepest nesting of arrays and objects (the JSON-RPC envelope itself takes 2–3 levels). */
  readonly maxDepth: number;
  /** Most arrays, objects and their members/items in one body. */
  readonly maxElements: number;
}

/**
 * Generous for any MCP request (a tool's arguments nest a few levels and hold
 * at most thousands of values), far below what makes `JSON.parse` costly: a
 * 4 MiB body of `[[[[…` or of a million tiny values costs seconds and hundreds
 * of MB once parsed, several times over, by the SDK and the gateway.
 */
export const DEFAULT_JSON_SHAPE_LIMITS: JsonShapeLimits = { maxDepth: 64, maxElements: 100_000 };

/** Why a body was refused before it was parsed, with the HTTP status to answer. */
export interface JsonShapeViolation {
  readonly status: 400 | 413;
  readonly message: string;
}

/** Fed a body chunk by chunk; says as soon as it breaks a limit. */
export interface JsonShapeScanner {
  feed(chunk: Uint8Array): JsonShapeViolation | undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;

/**
 * A linear scan over the raw bytes, outside strings: depth by brackets, elements
 * by containers opened and commas. It does not validate JSON (the parser does,
 * once the shape is known to be cheap); it only bounds what a parse would cost.
 * UTF-8 continuation bytes are all ≥ 0x80, so they never look like punctuation.
 */
export function createJsonShapeScanner(
  limits: JsonShapeLimits = DEFAULT_JSON_SHAPE_LIMITS,
): JsonShapeScanner {
  let depth = 0;
  let elements = 0;
  let inString = false;
  let escaped = false;
  return {
    feed(chunk) {
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i] as number;
        if (inString) {
          if (escaped) escaped = false;
          else if (byte === BACKSLASH) escaped = true;
          else if (byte === QUOTE) inString = false;
          continue;
        }
        if (byte === QUOTE) inString = true;
        else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
          if (++depth > limits.maxDepth)
            return {
              status: 400,
              message: `request JSON nested deeper than ${limits.maxDepth} levels (the gateway's limit)`,
            };
          elements++;
        } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth--;
        else if (byte === COMMA) elements++;
        else continue;
        if (elements > limits.maxElements)
          return {
            status: 413,
            message: `request JSON has more than ${limits.maxElements} elements (arrays, objects and their members; the gateway's limit)`,
          };
      }
      return undefined;
    },
  };
}
