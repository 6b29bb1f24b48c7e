import { forModel } from '../text/index.js';

/** What a label value beyond its cap, or one that is empty once cleaned, is counted as. */
export const OTHER = '_other';

/** Characters kept of one label value: a tool name is short; a longer one is a server's prank. */
export const MAX_LABEL_LENGTH = 128;

/**
 * Distinct values one label may take in the life of the process (the rest count as `_other`).
 * Tool and server names come from servers, so an upstream that lists a fresh tool name every
 * minute must not make every scrape, and Prometheus's memory, grow without end.
 */
export const DEFAULT_LABEL_LIMITS = { server: 100, tool: 500 } as const;

/**
 * The values one label has taken, up to `limit`: each new value is cleaned (terminal controls,
 * invisible and reordering characters, newlines gone; cut at `MAX_LABEL_LENGTH`) and counted;
 * past the limit every new value becomes `_other`. Quotes and backslashes stay: the
 * exposition format escapes them.
 */
export function boundedLabel(limit: number): (value: string) => string {
  const seen = new Map<string, string>();
  return (value) => {
    const known = seen.get(value);
    if (known !== undefined) return known;
    if (seen.size >= limit) return OTHER;
    const cleaned = forModel(value)
      .replace(/\p{Cc}/gu, ' ')
      .trim()
      .slice(0, MAX_LABEL_LENGTH);
    const shown = cleaned === '' ? OTHER : cleaned;
    seen.set(value, shown);
    return shown;
  };
}
