import { canonicalJson } from '../entry/fingerprint.js';
import type { McpxEntry } from './types.js';

const EMPTY_DROPPED = new Set([
  'args',
  'env',
  'env_passthrough',
  'headers',
  'allowed_tools',
  'disabled_tools',
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The one way of writing a server that every reader and writer agrees on, so
 * `read(write(x))` can be compared with `x`: empty lists and maps left out,
 * `enabled` only when false, `type` only when it says `sse` (stdio follows
 * from `command`, Streamable HTTP is what a `url` means), keys sorted.
 */
export function canonicalEntry(entry: Readonly<Record<string, unknown>>): McpxEntry {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(entry).sort()) {
    const value = entry[key];
    if (value === undefined || value === null) continue;
    if (EMPTY_DROPPED.has(key)) {
      if (Array.isArray(value) && value.length === 0) continue;
      if (isRecord(value) && Object.keys(value).length === 0) continue;
    }
    if (key === 'enabled' && value === true) continue;
    if (key === 'type' && value !== 'sse') continue;
    out[key] = value;
  }
  return out;
}

const WRITE_ORDER = [
  'type',
  'command',
  'args',
  'env',
  'env_passthrough',
  'cwd',
  'url',
  'headers',
  'enabled',
  'connect_timeout',
  'request_timeout',
  'allowed_tools',
  'disabled_tools',
];

/** The entry's keys in the order people write them (command before args), for files people read. */
export function readableEntry(entry: McpxEntry): McpxEntry {
  const rank = (key: string) => (WRITE_ORDER.includes(key) ? WRITE_ORDER.indexOf(key) : WRITE_ORDER.length);
  return Object.fromEntries(Object.entries(entry).sort(([a], [b]) => rank(a) - rank(b)));
}

/** Whether two entries mean the same server. */
export function sameEntry(a: McpxEntry, b: McpxEntry): boolean {
  return canonicalJson(canonicalEntry(a)) === canonicalJson(canonicalEntry(b));
}

/** A string map from a client app's file: only string values count (others are the client app's mistake, not ours to fix). */
export function stringRecord(value: unknown, mapValue: (s: string) => string = (s) => s) {
  if (!isRecord(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) if (typeof v === 'string') out[key] = mapValue(v);
  return out;
}

/** A string list from a client app's file. */
export function stringList(value: unknown, mapValue: (s: string) => string = (s) => s) {
  return Array.isArray(value)
    ? value.filter((v): v is string => typeof v === 'string').map(mapValue)
    : undefined;
}

export { isRecord };
