import type { $ZodMemoizer } from 'zod/v4/core';

/**
 * zod (4.6 on) gives every container schema a memoizer, so that one parse can follow a
 * reference cycle in its input (an object that holds itself). The first parse of each
 * container walks its whole subtree to learn whether it can be re-entered, and the wrapper
 * stays on every later parse of a schema it cannot prove acyclic: ~7 ms of CPU in each cold
 * `mcpx call` (the SDK's message unions are large) and ~0.2 µs per message after. What mcpx's
 * processes parse comes from JSON, TOML (Codex's config) or the SDK's reader of skill frontmatter
 * (a YAML subset without anchors and aliases): none can hold a cycle. So the command installs a
 * memoizer that tracks nothing, before zod makes its first container (zod installs its own
 * only where none is set), and parsing is as it was before 4.6. The library never calls this:
 * zod's config is global, and in a program that imports mcpx it is that program's.
 */
const untracked: $ZodMemoizer = {
  attach() {},
  guard() {},
  alloc: (_inst, _payload, empty) => empty,
};

/**
 * zod keeps its config on this global key, so that every copy of zod in a process shares it
 * (the bundle's and a program's own); written here without loading zod before it is needed.
 */
const CONFIG_KEY = '__zod_globalConfig';

/** Turns off zod's cycle tracking in this process, unless a memoizer is already in place. */
export function parseWithoutCycleTracking(): void {
  const holder = globalThis as { [CONFIG_KEY]?: { memoizer?: $ZodMemoizer } };
  holder[CONFIG_KEY] ??= {};
  holder[CONFIG_KEY].memoizer ??= untracked;
}
