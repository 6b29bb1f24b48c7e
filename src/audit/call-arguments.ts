import { looksLikeToken, namesSecret } from '../text/index.js';

/** What stands in for a value that looks secret. */
export const MASKED = '‹masked›';
/** Deeper than this, a value is recorded as `‹…›`: a log line stays a line. */
const MAX_DEPTH = 6;
/** Longer strings are cut: the audit log records what was asked, not every byte of it. */
const MAX_STRING = 500;

/**
 * A call's arguments fit for a log: every value under a key that names a secret (`apiKey`,
 * `password`, `--token`, at any depth) and every string shaped like a well-known token masked,
 * whatever it is called; long strings cut.
 */
export function maskArguments(args: unknown): Record<string, unknown> {
  // A model's arguments come as the JSON text it wrote.
  const value = typeof args === 'string' ? parsed(args) : args;
  if (!isRecord(value)) return {};
  return maskRecord(value, 0);
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function maskRecord(value: Readonly<Record<string, unknown>>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value))
    out[key] =
      namesSecret(key) && inner !== null && inner !== undefined ? MASKED : maskValue(inner, depth + 1);
  return out;
}

function maskValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    if (looksLikeToken(value.trim())) return MASKED;
    return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}… (${value.length} chars)` : value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return '‹…›';
  if (Array.isArray(value)) return value.map((item) => maskValue(item, depth + 1));
  return maskRecord(value as Record<string, unknown>, depth);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
