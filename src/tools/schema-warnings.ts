import type { RoutedTool } from './router.js';

/** A tool offered with a flaw the model should not pay for (a schema that cannot be compiled, so its calls go unchecked). */
export interface AgentToolWarning {
  readonly server: string;
  readonly tool: string;
  readonly message: string;
}

/** Schemas that cannot be compiled (so calls go unchecked), each reported once. */
export interface SchemaWarnings {
  /** Every warning so far. */
  readonly list: readonly AgentToolWarning[];
  warnOnce(schema: object, routed: RoutedTool, which: 'inputSchema' | 'outputSchema', reason: string): void;
}

/** Warnings kept, and each told to `onWarning` once per schema object. */
export function createSchemaWarnings(onWarning?: (warning: AgentToolWarning) => void): SchemaWarnings {
  const list: AgentToolWarning[] = [];
  const warned = new WeakSet<object>();
  return {
    list,
    warnOnce(schema, routed, which, reason) {
      if (warned.has(schema)) return;
      warned.add(schema);
      const warning = {
        server: routed.source.id,
        tool: routed.tool.name,
        message: `the ${which} of '${routed.source.id}' tool '${routed.tool.name}' cannot be compiled, so it is not checked: ${reason}`,
      };
      list.push(warning);
      onWarning?.(warning);
    },
  };
}
