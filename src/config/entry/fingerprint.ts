import { createHash } from 'node:crypto';

/** The parts of an entry that decide what runs and where data goes, as written in the file. */
export interface FingerprintInput {
  readonly command?: unknown;
  readonly args?: unknown;
  readonly env?: unknown;
  readonly envPassthrough?: unknown;
  readonly url?: unknown;
  readonly headers?: unknown;
  readonly cwd?: unknown;
  /** Widens where the server may send mcpx (SSRF allow list): a change needs a new approval. */
  readonly allowedHosts?: unknown;
}

/**
 * sha256 (hex) of the canonical JSON (sorted keys, absent fields left out) of
 * what decides an entry's trust. Config entries pass every fingerprinted
 * field as written (see `FIELD_TRUST`) plus the command, args, cwd and url as
 * they will run; built-in and ad-hoc servers pass their command or url.
 * Header and env values count as written only: approving `${TOKEN}` approves
 * the entry, not today's token value.
 */
export function fingerprintEntry(input: FingerprintInput | Readonly<Record<string, unknown>>): string {
  return createHash('sha256').update(canonicalJson(input)).digest('hex');
}

/** JSON with object keys sorted at every depth, so equal values hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
