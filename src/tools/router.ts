import type { Tool } from '@modelcontextprotocol/client';
import { forModel } from '../text/index.js';
import { createCatalogue } from './catalogue.js';
import type { NamingStyle } from './naming.js';
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
 * Tool sources under one namespace: lists every source's tools as one catalogue
 * (`catalogue.ts`: collision-free names in the chosen style) and finds the source
 * and tool for a name. `offers` (the policy's `guard.offers`) applies to guarded
 * sources only: the host's own functions are not the policy's.
 */
export class ToolRouter {
  readonly #sources: readonly ToolSource[];
  readonly #naming: NamingStyle;
  readonly #offers: ((server: string, tool: string) => boolean) | undefined;
  #byName = new Map<string, RoutedTool>();
  /** Tools `offers` refused, under the names they would have: to refuse a call by name in words. */
  #hidden = new Map<string, { readonly source: ToolSource; readonly tool: Tool }>();

  constructor(
    sources: readonly ToolSource[],
    options: {
      readonly naming?: NamingStyle;
      readonly offers?: (server: string, tool: string) => boolean;
    } = {},
  ) {
    this.#sources = sources;
    this.#naming = options.naming ?? 'prefixed';
    this.#offers = options.offers;
  }

  /** Re-list every source (a source that fails to list contributes no tools). */
  async refresh(): Promise<readonly RoutedTool[]> {
    const listed = await Promise.all(
      this.#sources.map(async (source) => ({ source, tools: await source.listTools().catch(() => []) })),
    );
    const offers = this.#offers;
    // Each item carries its source: two sources may share an id (an extra source named like a server).
    const catalogue = createCatalogue(
      listed.flatMap(({ source, tools }) =>
        tools
          .filter((tool) => !offers || !source.guarded || offers(source.id, tool.name))
          .map((tool) => ({ server: source.id, item: { name: tool.name, tool, source } })),
      ),
      { naming: this.#naming },
    );
    const routed = new Map<string, RoutedTool>();
    for (const { name, item } of catalogue.entries) {
      const { tool, source } = item;
      const description = forModel(tool.description ?? tool.title ?? '');
      routed.set(name, {
        name,
        description: `[${forModel(source.id)}] ${description}`.trim(),
        parameters: (tool.inputSchema ?? { type: 'object' }) as Record<string, unknown>,
        source,
        tool,
      });
    }
    this.#byName = routed;
    this.#hidden = new Map();
    if (offers) {
      const all = createCatalogue(
        listed.flatMap(({ source, tools }) =>
          tools.map((tool) => ({ server: source.id, item: { name: tool.name, tool, source } })),
        ),
        { naming: this.#naming },
      );
      for (const { name, item } of all.entries)
        if (item.source.guarded && !offers(item.source.id, item.tool.name)) this.#hidden.set(name, item);
    }
    return this.tools;
  }

  get tools(): readonly RoutedTool[] {
    return [...this.#byName.values()];
  }

  resolve(name: string): RoutedTool | undefined {
    return this.#byName.get(name);
  }

  /** The tool the policy does not offer that `name` would be, were it offered. */
  hidden(name: string): { readonly source: ToolSource; readonly tool: Tool } | undefined {
    return this.#hidden.get(name);
  }
}
