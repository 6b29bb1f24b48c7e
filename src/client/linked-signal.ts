/**
 * One listener per caller signal, however many requests share it. The SDK
 * adds an `abort` listener to the signal of every request; 2,000 concurrent
 * calls sharing the caller's signal would trip MaxListenersExceededWarning.
 * Each request gets its own child signal instead, fed from a single listener.
 */
const children = new WeakMap<AbortSignal, Set<AbortController>>();

/** A child of `parent` for one request; call `release()` when the request settles. */
export function linkSignal(parent: AbortSignal): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, release: () => {} };
  }
  let set = children.get(parent);
  if (!set) {
    const created = new Set<AbortController>();
    set = created;
    children.set(parent, created);
    parent.addEventListener(
      'abort',
      () => {
        for (const child of created) child.abort(parent.reason);
        created.clear();
        children.delete(parent);
      },
      { once: true },
    );
  }
  set.add(controller);
  const live = set;
  return { signal: controller.signal, release: () => live.delete(controller) };
}
