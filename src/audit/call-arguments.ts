import { maskSecrets } from '../text/index.js';

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
  return maskSecrets(value, { marker: MASKED, maxDepth: MAX_DEPTH, maxString: MAX_STRING }) as Record<
    string,
    unknown
  >;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
