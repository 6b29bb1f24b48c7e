/**
 * A store command's failure while the fleet runs, in words a client or `/healthz` may show. Apart
 * from fleet-state.ts so the fleet's stores can word failures without loading the Redis client.
 */
export function storeError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // ioredis's messages may quote the URL it was given; keep only the first line, without credentials.
  return (text.split('\n')[0] ?? '').replace(/\/\/[^@/\s]*@/g, '//');
}
