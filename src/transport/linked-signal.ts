/**
 * One listener per shared signal, however many requests hang off it. Whoever
 * takes a signal (the SDK per request, `http.request` per socket) adds an
 * `abort` listener to it; 2,000 concurrent calls sharing the CLI's Ctrl-C
 * signal, 60 servers connecting on it, or 2,000 POSTs on one Streamable HTTP
 * session sharing the SDK transport's signal would trip
 * MaxListenersExceededWarning. Each user gets its own child signal instead,
 * fed from a single listener on the shared one.
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
