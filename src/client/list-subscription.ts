import {
  type Client,
  type McpSubscription,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  type SubscriptionFilter,
} from '@modelcontextprotocol/client';
import { backoffDelay } from '../transport/index.js';

/** The first wait before listening again; it doubles (with jitter) while streams keep failing. */
const RELISTEN_BASE_MS = 250;
const RELISTEN_MAX_MS = 30_000;
/** A stream that stayed open this long was healthy: the next drop starts the backoff afresh. */
const STABLE_STREAM_MS = 10_000;

export interface KeepListeningOptions {
  /** What to listen for (the list-changed capabilities the server advertises). */
  readonly filter: SubscriptionFilter;
  /** How long the server has to acknowledge a listen. */
  readonly ackTimeoutMs: number;
  /**
   * A stream was opened again after a drop. Changes announced while there was
   * none were lost (2026-07-28 listen streams do not resume), so the host
   * should assume the lists changed.
   */
  readonly onReopened: (honored: SubscriptionFilter) => void;
  /** Injected for tests. */
  readonly random?: () => number;
}

/**
 * Keep a 2026-07-28 `subscriptions/listen` stream open for the life of the
 * connection. SDK 2.4.0 opens it once after connect (`autoOpenedSubscription`)
 * and never again: once the stream drops, list changes go unheard. Here every
 * drop is followed by a new `listen()` — a new request id each time — after
 * a bounded, jittered backoff, for as long as the connection lives.
 * Returns `stop`, to call when the connection closes.
 */
export function keepListening(
  client: Client,
  first: McpSubscription | undefined,
  options: KeepListeningOptions,
): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  const backoff = {
    baseMs: RELISTEN_BASE_MS,
    maxMs: RELISTEN_MAX_MS,
    ...(options.random ? { random: options.random } : {}),
  };

  const watch = (subscription: McpSubscription) => {
    const opened = performance.now();
    void subscription.closed.then((cause) => {
      if (stopped || cause === 'local') return;
      if (performance.now() - opened >= STABLE_STREAM_MS) failures = 0;
      schedule();
    });
  };
  const schedule = () => {
    failures++;
    timer = setTimeout(() => void reopen(), backoffDelay(failures, backoff));
    timer.unref?.();
  };
  const reopen = async () => {
    timer = undefined;
    if (stopped) return;
    let subscription: McpSubscription;
    try {
      subscription = await client.listen(options.filter, { timeout: options.ackTimeoutMs });
    } catch (error) {
      if (!stopped && !isPermanent(error)) schedule();
      return;
    }
    if (stopped) {
      await subscription.close().catch(() => {});
      return;
    }
    watch(subscription);
    options.onReopened(subscription.honoredFilter);
  };

  // No first stream: the server did not acknowledge the one opened at connect. Try again, with backoff.
  if (first) watch(first);
  else schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** Failures that another listen would only repeat: the connection is gone, or the server will never listen. */
function isPermanent(error: unknown): boolean {
  if (error instanceof SdkError) {
    return (
      error.code === SdkErrorCode.NotConnected ||
      error.code === SdkErrorCode.MethodNotSupportedByProtocolVersion
    );
  }
  if (error instanceof ProtocolError) {
    return error.code === ProtocolErrorCode.MethodNotFound || error.code === ProtocolErrorCode.InvalidParams;
  }
  return false;
}
