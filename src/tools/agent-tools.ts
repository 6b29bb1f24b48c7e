import type { Tool } from '@modelcontextprotocol/client';
import type { AuditCaller, AuditDecision, AuditedCall, AuditTrail } from '../audit/index.js';
import { suggest as suggestName } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import type { PermissionGuard, ToolCallGuard } from '../permissions/index.js';
import type { ServerRegistry } from '../registry/index.js';
import { forModel } from '../text/index.js';
import { argumentsObject } from './arguments-object.js';
import type { NamingStyle } from './naming.js';
import { createResourceTools } from './resource-tools.js';
import { type AgentToolResult, convertToolResult } from './result.js';
import { type RoutedTool, ToolRouter } from './router.js';
import { searchTools } from './tool-search.js';
import { mcpToolSource, type ToolCallOptions, type ToolSource } from './tool-source.js';
import { checkAgainstSchema, formatProblems } from './validate.js';

/** A tool as an agent framework needs it: a name, a description and JSON Schema parameters. */
export interface AgentTool {
  /** Provider-valid (`^[a-zA-Z0-9_-]{1,64}$`, dots too in the dotted style) and unique. */
  readonly name: string;
  /** Tagged with its server (`[server] …`); hidden Unicode and terminal controls removed. */
  readonly description: string;
  readonly parameters: Record<string, unknown>;
  /** The MCP server (or in-process source) behind it; absent for the search pair and the resource pair. */
  readonly server?: string;
  /** The tool's name on that server. */
  readonly toolName?: string;
  /** The definition as the server gave it (unsanitized: for approval prompts and fingerprints). */
  readonly tool?: Tool;
}

export interface AgentToolsOptions {
  /** The agent these tools are for: it sees shared servers and its own. */
  readonly agentId?: string;
  readonly naming?: NamingStyle;
  /** Only these servers (default: every ready server visible to the agent). */
  readonly servers?: readonly string[];
  /** Plain functions of the host, mixed with the MCP tools. */
  readonly extraSources?: readonly ToolSource[];
  /**
   * Decides every call to an MCP server. Without one, every MCP call is
   * denied: a library agent gets no MCP access unless its host says so.
   */
  readonly guard?: ToolCallGuard;
  /**
   * Each MCP tool call is recorded here: who asked, the guard's decision, the duration and the
   * outcome; so is each resource listing and read (`resources: true`), as a call of
   * `resources/list` or `resources/read`. The host's `agentTools()` passes its own trail.
   */
  readonly audit?: { readonly trail: AuditTrail; readonly who: AuditCaller };
  /** Longest text of a result, in characters (default 100,000). */
  readonly maxTextLength?: number;
  /**
   * `all`: every tool's schema. `search`: two tools, `search_tools` and
   * `call_tool`, for sets too large for a prompt. `auto` (default): `search`
   * above `searchThreshold` tools (default {@link SEARCH_THRESHOLD}, 40).
   */
  readonly mode?: 'all' | 'search' | 'auto';
  readonly searchThreshold?: number;
  /**
   * Also offer `list_resources` and `read_resource` (off by default): the
   * resources and templates of every server, paged, and one resource's
   * contents. Each listing and read is decided by `guard` as a call of
   * `resources/list` or `resources/read` on that server; the pair is offered
   * while some server declares resources, in both modes.
   */
  readonly resources?: boolean;
  /**
   * Told of what does not stop a call but should not go unnoticed: a tool
   * whose inputSchema or outputSchema cannot be compiled, so it is called
   * unchecked. Each such schema is reported once; `warnings` keeps them too.
   */
  readonly onWarning?: (warning: AgentToolWarning) => void;
}

export interface AgentToolWarning {
  readonly server: string;
  readonly tool: string;
  readonly message: string;
}

export interface AgentToolSet {
  /** What to give the model (the search pair in search mode). */
  readonly tools: readonly AgentTool[];
  /** Every routed tool, whatever the mode. */
  readonly catalog: readonly RoutedTool[];
  readonly mode: 'all' | 'search';
  /** Every warning so far (see `AgentToolsOptions.onWarning`). */
  readonly warnings: readonly AgentToolWarning[];
  /** Validate, ask the guard, call, convert. A tool's own failure is a result with `isError`. */
  call(name: string, args: unknown, options?: ToolCallOptions): Promise<AgentToolResult>;
  /** Re-list (also done on every catalogue change the registry reports). */
  refresh(): Promise<void>;
  /** Stop following the registry's catalogue changes. */
  close(): void;
}

/** Above this many tools, `auto` mode offers the search pair instead of every schema. */
export const SEARCH_THRESHOLD = 40;

export const SEARCH_TOOL = 'search_tools';
export const CALL_TOOL = 'call_tool';

const searchPair: readonly AgentTool[] = [
  {
    name: SEARCH_TOOL,
    description:
      'Find tools by what they do. Returns the best matches with their names, descriptions and parameters; call one with call_tool.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'words describing the task, e.g. "read a file"' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: 25,
          description: 'how many tools to return (default 8)',
        },
      },
      required: ['query'],
    },
  },
  {
    name: CALL_TOOL,
    description:
      'Call a tool found with search_tools, by its exact name, with arguments matching its parameters.',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'the tool name search_tools returned' },
        arguments: { type: 'object', description: "the tool's arguments" },
      },
      required: ['name'],
    },
  },
];

const noPolicy: ToolCallGuard = {
  check: async (request) => {
    throw new McpxError(
      ErrorCode.PermissionDenied,
      `calling '${request.server}' tool '${request.tool.name}' was denied: this agent has no permission policy, so it has no MCP access`,
      {
        server: request.server,
        tool: request.tool.name,
        fixes: [
          'pass `guard: createPermissionGuard({ level, approver })` to createAgentTools to allow MCP access',
        ],
      },
    );
  },
};

function offersOf(guard: ToolCallGuard): ((server: string, tool: string) => boolean) | undefined {
  const { offers } = guard as Partial<Pick<PermissionGuard, 'offers'>>;
  return typeof offers === 'function' ? (server, tool) => offers.call(guard, server, tool) : undefined;
}

/**
 * Every tool of every ready server in `registry` (plus `extraSources`) as
 * agent tools: provider-valid names, descriptions tagged with their server,
 * arguments validated against the input schema before the server is called,
 * each call decided by the permission guard, results as typed parts and
 * bounded text, `structuredContent` checked against the `outputSchema`.
 */
export async function createAgentTools(
  registry: ServerRegistry,
  options: AgentToolsOptions = {},
): Promise<AgentToolSet> {
  const guard = options.guard ?? noPolicy;
  // A permission guard also says which tools are offered at all (`excludeTools`, the config's lists).
  const offers = offersOf(guard);
  const serverNames = () =>
    registry
      .list(options.agentId)
      .map((s) => s.name)
      .filter((name) => !options.servers || options.servers.includes(name));
  let router = new ToolRouter([], {});
  let mode: 'all' | 'search' = 'all';
  const warnings: AgentToolWarning[] = [];
  const warned = new WeakSet<object>();
  const warnOnce = (schema: object, routed: RoutedTool, which: string, reason: string) => {
    if (warned.has(schema)) return;
    warned.add(schema);
    const warning = {
      server: routed.source.id,
      tool: routed.tool.name,
      message: `the ${which} of '${routed.source.id}' tool '${routed.tool.name}' cannot be compiled, so it is not checked: ${reason}`,
    };
    warnings.push(warning);
    options.onWarning?.(warning);
  };

  let generation = 0;
  let refreshing: Promise<void> = Promise.resolve();
  const refresh = () => {
    refreshing = rebuild();
    return refreshing;
  };
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
    const wanted = options.mode ?? 'auto';
    mode =
      wanted === 'auto'
        ? router.tools.length > (options.searchThreshold ?? SEARCH_THRESHOLD)
          ? 'search'
          : 'all'
        : wanted;
  };

  /**
   * The definition as the server has it now: a call made right after a
   * tools/list_changed waits for the new list, so arguments are checked and
   * the guard decides on what the server will actually run.
   */
  const current = async (routed: RoutedTool): Promise<RoutedTool> => {
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
  };

  /** An MCP call is audited from the moment it is asked for, so a call that fails early is recorded too. */
  const callRouted = async (offered: RoutedTool, rawArgs: unknown, callOptions: ToolCallOptions) => {
    const audited = offered.source.guarded
      ? options.audit?.trail.begin({
          who: options.audit.who,
          server: offered.source.id,
          tool: offered.tool.name,
          args: rawArgs,
        })
      : undefined;
    try {
      return await callChecked(offered, rawArgs, callOptions, audited);
    } catch (error) {
      audited?.failed(error);
      throw error;
    }
  };

  const callChecked = async (
    offered: RoutedTool,
    rawArgs: unknown,
    callOptions: ToolCallOptions,
    audited: AuditedCall | undefined,
  ) => {
    const routed = await current(offered);
    const args = argumentsObject(rawArgs, routed.name, { server: routed.source.id, tool: routed.tool.name });
    const check = checkAgainstSchema(routed.parameters, args);
    if (check.ok === 'unchecked') warnOnce(routed.parameters, routed, 'inputSchema', check.reason);
    if (check.ok === false) {
      const problems = formatProblems(check.problems);
      throw new McpxError(
        ErrorCode.InvalidArguments,
        `invalid arguments for '${routed.name}': ${problems.join('; ')}`,
        {
          server: routed.source.id,
          tool: routed.tool.name,
          causes: problems,
          fixes: ["call it again with arguments that match the tool's parameters"],
        },
      );
    }
    if (routed.source.guarded) {
      let decision: AuditDecision = { result: 'allowed', by: 'guard' };
      await guard.check(
        {
          ...(options.agentId === undefined ? {} : { agentId: options.agentId }),
          server: routed.source.id,
          tool: routed.tool,
          args,
        },
        {
          ...(callOptions.signal ? { signal: callOptions.signal } : {}),
          onDecision: (d) => {
            decision = d;
            audited?.decided(d);
          },
        },
      );
      // A guard of the program's own may say nothing of how it decided.
      audited?.decided(decision);
    }
    const result = await routed.source.callTool(routed.tool.name, args, callOptions);
    audited?.returned(result);
    const outputSchema = routed.tool.outputSchema as object | undefined;
    return convertToolResult(result, {
      server: routed.source.id,
      tool: routed.tool.name,
      ...(outputSchema
        ? {
            outputSchema,
            onUncheckedSchema: (reason: string) => warnOnce(outputSchema, routed, 'outputSchema', reason),
          }
        : {}),
      ...(options.maxTextLength ? { maxTextLength: options.maxTextLength } : {}),
    });
  };

  const resolve = (name: string): RoutedTool => {
    const routed = router.resolve(name);
    if (routed) return routed;
    refuseOutOfProfile(name);
    const guess = suggestName(
      name,
      router.tools.map((t) => t.name),
    );
    throw new McpxError(
      ErrorCode.UnknownTool,
      `no tool named '${name}'${guess ? ` — did you mean '${guess}'?` : ''}`,
      {
        tool: name,
        fixes: [
          mode === 'search'
            ? 'find the exact name with search_tools first'
            : 'use one of the tool names you were given',
        ],
      },
    );
  };

  /**
   * A tool the session's profile leaves out is refused as such (the guard's words, "not in
   * profile P"), not as unknown: the model or the person then knows why. Other tools the
   * policy hides (exclusions, a server's own lists) stay unknown, as they always were.
   */
  const refuseOutOfProfile = (name: string): void => {
    const hidden = router.hidden(name);
    const policy = guard as Partial<PermissionGuard>;
    if (!hidden || policy.profile === undefined || !policy.outOfProfile?.(hidden.source.id, hidden.tool.name))
      return;
    const ruled = policy.verdict?.({ server: hidden.source.id, tool: hidden.tool });
    if (ruled?.kind !== 'deny') return;
    throw new McpxError(
      ErrorCode.PermissionDenied,
      `calling '${hidden.source.id}' tool '${hidden.tool.name}' was denied: ${ruled.reason}`,
      { server: hidden.source.id, tool: hidden.tool.name, fixes: [ruled.fix] },
    );
  };

  const resources = options.resources
    ? createResourceTools(registry, {
        guard,
        ...(offers ? { offers } : {}),
        ...(options.audit ? { audit: options.audit } : {}),
        servers: serverNames,
        ...(options.agentId === undefined ? {} : { agentId: options.agentId }),
        ...(options.maxTextLength ? { maxTextLength: options.maxTextLength } : {}),
      })
    : undefined;

  await refresh();
  const unsubscribe = registry.on((event) => {
    // A new catalogue, a server that came up or went away; not the busy ⇄ ready of every call.
    const changed =
      event.type === 'catalog' ||
      (event.type === 'state' &&
        ((event.state === 'ready' && event.previous === 'starting') ||
          event.state === 'error' ||
          event.state === 'stopped'));
    if (changed) void refresh();
  });

  return {
    get tools() {
      const offered =
        mode === 'search'
          ? searchPair
          : router.tools.map(({ name, description, parameters, source, tool }) => ({
              name,
              description,
              parameters,
              server: source.id,
              toolName: tool.name,
              tool,
            }));
      return resources ? [...offered, ...resources.tools] : offered;
    },
    get catalog() {
      return router.tools;
    },
    get mode() {
      return mode;
    },
    get warnings() {
      return [...warnings];
    },
    async call(name, args, callOptions = {}) {
      // No MCP tool can have these names (see naming.ts: every routed name has a prefix or a separator).
      if (resources?.has(name)) return resources.call(name, args, callOptions);
      if (mode === 'search' && name === SEARCH_TOOL) {
        // Providers hand arguments over as they came: a JSON string (OpenAI) or an object.
        const { query, limit } = argumentsObject(args, SEARCH_TOOL);
        if (typeof query !== 'string' || query.trim() === '') {
          throw new McpxError(ErrorCode.InvalidArguments, `${SEARCH_TOOL} needs a query`, {
            fixes: ['give words describing the task as "query", e.g. {"query": "read a file"}'],
          });
        }
        const count = typeof limit === 'number' && Number.isFinite(limit) ? Math.floor(limit) : 8;
        const hits = searchTools(router.tools, query, Math.min(25, Math.max(1, count)));
        const listing = hits.map((h) => ({
          name: h.tool.name,
          server: h.tool.source.id,
          description: h.tool.description,
          parameters: h.tool.parameters,
        }));
        const text = hits.length ? JSON.stringify(listing, null, 2) : `no tool matches '${forModel(query)}'`;
        return { parts: [{ type: 'text', text }], text, truncated: false, isError: false };
      }
      if (mode === 'search' && name === CALL_TOOL) {
        const { name: target, arguments: targetArgs } = argumentsObject(args, CALL_TOOL);
        if (typeof target !== 'string' || target === '') {
          throw new McpxError(ErrorCode.InvalidArguments, `${CALL_TOOL} needs the name of a tool`, {
            fixes: [`give "name", a tool name ${SEARCH_TOOL} returned, and its "arguments"`],
          });
        }
        return callRouted(resolve(target), targetArgs ?? {}, callOptions);
      }
      return callRouted(resolve(name), args, callOptions);
    },
    refresh,
    close: unsubscribe,
  };
}
