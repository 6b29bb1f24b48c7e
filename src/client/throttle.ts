/** A throttled announcement: call it on every change; `stop()` drops one still owed. */
export interface Throttle {
  (): void;
  stop(): void;
}

/**
 * The least time between two announcements of one kind while changes keep coming: a person
 * or a host sees a change within half a second, and a flood costs at most two re-reads a second.
 */
export const NOTICE_INTERVAL_MS = 500;

/**
 * How a burst of a server's "something changed" notifications (a list changed, a resource was
 * updated) is told onwards: the first at once, then at most one every `intervalMs` while more
 * keep coming, and always one after the last, so a listener learns of every change without
 * hearing each (30,000 announcements become a handful, the last of them after the final
 * change). Such a notification carries no data but "ask again", so nothing is lost. The timer
 * never keeps the process alive.
 *
 * @example
 * const changed = throttle(() => tellClients('resources'));
 * for (let i = 0; i < 30_000; i++) changed(); // told once now, once more 500 ms later
 */
export function throttle(announce: () => void, intervalMs = NOTICE_INTERVAL_MS): Throttle {
  let timer: NodeJS.Timeout | undefined;
  let owed = false;
  const wait = () => {
    timer = setTimeout(() => {
      timer = undefined;
      if (!owed) return;
      owed = false;
      announce();
      wait();
    }, intervalMs);
    timer.unref();
  };
  const throttled = () => {
    if (timer) {
      owed = true;
      return;
    }
    announce();
    wait();
  };
  return Object.assign(throttled, {
    stop: () => {
      clearTimeout(timer);
      timer = undefined;
      owed = false;
    },
  });
}
