import { ErrorCode, McpxError } from '../errors/index.js';
import type { ServerRegistry } from '../registry/index.js';
import type { NamingStyle } from './naming.js';
import { type RoutedTool, ToolRouter } from './router.js';
import { SEARCH_THRESHOLD } from './search-pair.js';
import { mcpToolSource, type ToolSource } from './tool-source.js';

/** What an agent's catalogue is built from (the `AgentToolsOptions` it needs). */
export interface AgentCatalogOptions {
  readonly agentId?: string;
  readonly naming?: NamingStyle;
  readonly extraSources?: readonly ToolSource[];
  readonly mode?: 'all' | 'search' | 'auto';
  readonly searchThreshold?: number;
}

/** The tools an agent's set routes to, re-listed on every change, and the mode they are offered in. */
export interface AgentCatalog {
  readonly router: ToolRouter;
  readonly mode: 'all' | 'search';
  /** Re-list now (the latest of overlapping refreshes wins). */
  refresh(): Promise<void>;
  /**
   * The definition as the server has it now: a call made right after a
   * tools/list_changed waits for the new list, so arguments are checked and
   * the guard decides on what the server will actually run.
   */
  current(routed: RoutedTool): Promise<RoutedTool>;
  /** Re-list on each catalogue change the registry reports; returns the unsubscribe. */
  follow(): () => void;
}

/** An agent's catalogue over `registry`'s servers (those `serverNames` gives) and the extra sources. */
export function createAgentCatalog(
  registry: ServerRegistry,
  options: AgentCatalogOptions,
  serverNames: () => string[],
  offers: ((server: string, tool: string) => boolean) | undefined,
): AgentCatalog {
  let router = new ToolRouter([], {});
  let mode: 'all' | 'search' = 'all';
  let generation = 0;
  let refreshing: Promise<void> = Promise.resolve();
  const rebuild = async () => {
    // Refreshes overlap when events come in bursts: only the latest may replace the set.
    const mine = ++generation;
    const sources = [
      ...serverNames().map((name) => mcpToolSource(registry, name, options.agentId)),
      ...(options.extraSources ?? []),
    ];
    const next = new ToolRouter(sources, {
      ...(options.naming ? { naming: options.naming } : {}),
      ...(offers ? { offers } : {}),
    });
    await next.refresh();
    if (mine !== generation) return;
    router = next;
    mode = modeFor(router.tools.length, options);
  };
  const refresh = () => {
    refreshing = rebuild();
    return refreshing;
  };
  return {
    get router() {
      return router;
    },
    get mode() {
      return mode;
    },
    refresh,
    async current(routed) {
      if (!routed.source.guarded) return routed;
      await registry.toolsSettled(routed.source.id).catch(() => {});
      await refreshing;
      const now = router.resolve(routed.name);
      if (now) return now;
      throw new McpxError(
        ErrorCode.UnknownTool,
        `'${routed.source.id}' no longer offers '${routed.tool.name}'`,
        {
          server: routed.source.id,
          tool: routed.tool.name,
          fixes: ['use one of the tools the server offers now'],
        },
      );
    },
    follow: () =>
      registry.on((event) => {
        // A new catalogue, a server that came up or went away; not the busy ⇄ ready of every call.
        const changed =
          event.type === 'catalog' ||
          (event.type === 'state' &&
            ((event.state === 'ready' && event.previous === 'starting') ||
              event.state === 'error' ||
              event.state === 'stopped'));
        if (changed) void refresh();
      }),
  };
}

/** `auto` picks search mode above the threshold; otherwise the mode asked for. */
function modeFor(toolCount: number, options: AgentCatalogOptions): 'all' | 'search' {
  const wanted = options.mode ?? 'auto';
  if (wanted !== 'auto') return wanted;
  return toolCount > (options.searchThreshold ?? SEARCH_THRESHOLD) ? 'search' : 'all';
}
