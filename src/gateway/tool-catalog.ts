import type { Tool } from '@modelcontextprotocol/server';
import type { Namespace, Qualified } from './namespace.js';

/** Where one public tool name goes, and the upstream's definition of it. */
export type ToolRoute = Qualified & { readonly tool: Tool };

/** The merged tool list and where each public name goes. */
export interface ToolCatalog {
  readonly tools: Tool[];
  readonly routes: Map<string, ToolRoute>;
}

/**
 * One catalogue from the tools of several servers, in the order given: each tool under
 * its public name (`namespace.names`, so collisions and long names are settled once, the
 * same way for every list).
 */
export function buildToolCatalog(
  listed: readonly { readonly server: string; readonly tool: Tool }[],
  namespace: Namespace,
): ToolCatalog {
  const names = namespace.names(listed.map((l) => ({ server: l.server, name: l.tool.name })));
  const byKey = new Map(listed.map((l) => [`${l.server}\0${l.tool.name}`, l.tool]));
  const routes = new Map<string, ToolRoute>();
  const tools: Tool[] = [];
  for (const [publicName, q] of names) {
    const tool = byKey.get(`${q.server}\0${q.name}`);
    if (!tool) continue;
    routes.set(publicName, { ...q, tool });
    tools.push({ ...tool, name: publicName });
  }
  return { tools, routes };
}
