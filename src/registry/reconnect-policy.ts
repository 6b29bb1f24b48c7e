/** How a dead connection comes back. */
export type ReconnectMode = 'never' | 'lazy' | 'eager';

/** How a lost connection comes back: when, how many attempts, and the backoff between them. */
export interface ReconnectPolicy {
  /** never: stay in error until asked; lazy: on next use (default); eager: in the background. */
  readonly mode: ReconnectMode;
  /** Attempts after a connection died before giving up (until `connect()` is called explicitly). */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/** A lost connection comes back on next use, after up to 5 attempts with backoff from 0.5 to 30 seconds. */
export const DEFAULT_RECONNECT_POLICY: ReconnectPolicy = {
  mode: 'lazy',
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
};

/** Exponential backoff with full jitter: a random delay in [base·2^(n-1)/2, base·2^(n-1)], capped. */
export function reconnectDelay(
  policy: ReconnectPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
