import type { Tool } from '@modelcontextprotocol/client';
import { forModel } from '../text/index.js';
import { assignToolNames, type NamingStyle } from './naming.js';
import type { ToolSource } from './tool-source.js';

/** A tool as an agent is shown it, and where it really lives. */
export interface RoutedTool {
  /** Provider-valid and unique across every source. */
  readonly name: string;
  /** Tagged with its source; hidden Unicode and terminal controls removed. */
  readonly description: string;
  /** The input schema, as the server gave it (JSON Schema). */
  readonly parameters: Record<string, unknown>;
  readonly source: ToolSource;
  /** The definition as the source gave it (unsanitized: for approval prompts and fingerprints). */
  readonly tool: Tool;
}

/**
 * Tool sources under one namespace: lists every source's tools with
 * collision-free prefixed names and finds the source and tool for a name.
 */
export class ToolRouter {
  readonly #sources: readonly ToolSource[];
  readonly #naming: NamingStyle;
  #byName = new Map<string, RoutedTool>();

  constructor(sources: readonly ToolSource[], options: { readonly naming?: NamingStyle } = {}) {
    this.#sources = sources;
    this.#naming = options.naming ?? 'prefixed';
  }

  /** Re-list every source (a source that fails to list contributes no tools). */
  async refresh(): Promise<readonly RoutedTool[]> {
    const listed = await Promise.all(
      this.#sources.map(async (source) => ({ source, tools: await source.listTools().catch(() => []) })),
    );
    const entries = listed.flatMap(({ source, tools }) => tools.map((tool) => ({ source, tool })));
    const names = assignToolNames(
      entries.map((e) => ({ source: e.source.id, tool: e.tool.name })),
      this.#naming,
    );
    const byKey = new Map(entries.map((e) => [`${e.source.id}\0${e.tool.name}`, e]));
    const routed = new Map<string, RoutedTool>();
    for (const [name, q] of names) {
      const entry = byKey.get(`${q.source}\0${q.tool}`);
      if (!entry) continue;
      const description = forModel(entry.tool.description ?? entry.tool.title ?? '');
      routed.set(name, {
        name,
        description: `[${forModel(entry.source.id)}] ${description}`.trim(),
        parameters: (entry.tool.inputSchema ?? { type: 'object' }) as Record<string, unknown>,
        source: entry.source,
        tool: entry.tool,
      });
    }
    this.#byName = routed;
    return this.tools;
  }

  get tools(): readonly RoutedTool[] {
    return [...this.#byName.values()];
  }

  resolve(name: string): RoutedTool | undefined {
    return this.#byName.get(name);
  }
}
