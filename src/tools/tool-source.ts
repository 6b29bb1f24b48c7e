import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { isAppOnly, type ProgressEvent } from '../client/index.js';
import type { ServerRegistry } from '../registry/index.js';

/** How one agent tool call runs: cancellation, and progress reports. */
export interface ToolCallOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (event: ProgressEvent) => void;
}

/** A tool as a source describes it: the MCP `Tool` shape (name, description, input and output schemas). */
export type ToolDescriptor = Tool;

/**
 * The unified tool protocol (the Nerve seed): anything that lists N tools and
 * calls one by name — an MCP server, or plain functions in the host.
 */
export interface ToolSource {
  /** Used as the prefix of its tools' names (`mcp_<id>_<tool>`). */
  readonly id: string;
  /** MCP servers are guarded by the permission policy; the host's own functions are not. */
  readonly guarded: boolean;
  listTools(): Promise<readonly ToolDescriptor[]>;
  callTool(name: string, args: Record<string, unknown>, options?: ToolCallOptions): Promise<CallToolResult>;
}

/**
 * One MCP server of a registry, as seen by `agentId` (its catalogue is kept
 * fresh by the registry). Lists tools while they can be used: the server is up,
 * or it crashed and the reconnect policy brings it back on the next call (its
 * last catalogue stands until then). A server stopped, denied or given up on
 * offers none: a model would only get failures. A tool for its MCP App alone
 * (`_meta.ui.visibility` without `"model"`) is never offered: it is the app's to call.
 */
export function mcpToolSource(registry: ServerRegistry, server: string, agentId?: string): ToolSource {
  return {
    id: server,
    guarded: true,
    listTools: async () => {
      const status = registry.list(agentId).find((s) => s.name === server);
      return status?.usable ? status.tools.filter((tool) => !isAppOnly(tool)) : [];
    },
    callTool: (name, args, options = {}) =>
      registry.callTool(server, name, args, {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(agentId === undefined ? {} : { agentId }),
      }),
  };
}

/** A program's own tool, offered to an agent beside the servers' (`inProcessToolSource`). */
export interface InProcessTool {
  readonly definition: ToolDescriptor;
  /** Returns a full result, or just text. A thrown error becomes an `isError` result. */
  readonly handler: (
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ) => Promise<CallToolResult | string>;
}

/** Plain functions of the host as a tool source, so an agent can mix them with MCP tools. */
export function inProcessToolSource(id: string, tools: readonly InProcessTool[]): ToolSource {
  const byName = new Map(tools.map((t) => [t.definition.name, t]));
  return {
    id,
    guarded: false,
    listTools: async () => tools.map((t) => t.definition),
    async callTool(name, args, options = {}) {
      const tool = byName.get(name);
      if (!tool)
        return { content: [{ type: 'text', text: `no tool named '${name}' in '${id}'` }], isError: true };
      try {
        const result = await tool.handler(args, options);
        return typeof result === 'string' ? { content: [{ type: 'text', text: result }] } : result;
      } catch (error) {
        return {
          content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
          isError: true,
        };
      }
    },
  };
}
