/**
 * A store command's failure while the fleet runs, in words a client or `/healthz` may show. Apart
 * from fleet-state.ts so the fleet's stores can word failures without loading the Redis client.
 */
export function storeError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // ioredis's messages may quote the URL it was given; keep only the first line, without credentials.
  return withoutCredentials(text.split('\n')[0] ?? '');
}

/** `text` with the user and password of any URL in it taken out (`redis://:secret@host` → `redis://host`). */
export function withoutCredentials(text: string): string {
  return text.replace(/\/\/[^@/\s]*@/g, '//');
}
