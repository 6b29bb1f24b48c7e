import type { Tool } from '@modelcontextprotocol/client';
import type { AuditCaller, AuditTrail } from '../audit/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import type { PermissionGuard, ToolCallGuard } from '../permissions/index.js';
import type { ServerRegistry } from '../registry/index.js';
import { createAgentCatalog } from './agent-catalog.js';
import { callChecked } from './checked-call.js';
import type { NamingStyle } from './naming.js';
import { createResourceTools } from './resource-tools.js';
import type { AgentToolResult } from './result.js';
import type { RoutedTool } from './router.js';
import { type AgentToolWarning, createSchemaWarnings } from './schema-warnings.js';
import { answerSearch, CALL_TOOL, callTarget, SEARCH_PAIR, SEARCH_TOOL } from './search-pair.js';
import { createSkillTools } from './skill-tools.js';
import type { ToolCallOptions, ToolSource } from './tool-source.js';
import { unknownTool } from './unknown-tool.js';

export type { AgentToolWarning } from './schema-warnings.js';
export { CALL_TOOL, SEARCH_THRESHOLD, SEARCH_TOOL } from './search-pair.js';

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

/** Which tools an agent is offered and how: naming, servers, the program's own tools, search mode, resources, the guard. */
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
   * Offer `load_skill` and `read_skill_file` (on by default) while some usable server lists
   * skills (SEP-2640): `load_skill`'s description carries every skill's id
   * (`<server>.<skill>`) and description, tagged with its server; a skill's `SKILL.md` and files
   * are read only when the model asks, verified, and reach it tagged with their origin. Each load
   * and read is decided by `guard` as a call of the skill's `skill:<name>` action. `false`: none.
   */
  readonly skills?: boolean;
  /**
   * Told of what does not stop a call but should not go unnoticed: a tool
   * whose inputSchema or outputSchema cannot be compiled, so it is called
   * unchecked. Each such schema is reported once; `warnings` keeps them too.
   */
  readonly onWarning?: (warning: AgentToolWarning) => void;
}

/** The tools given to a model, and how to run the calls it makes of them (validated, guarded, converted). */
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
  const catalog = createAgentCatalog(registry, options, serverNames, offers);
  const warnings = createSchemaWarnings(options.onWarning);
  const context = {
    guard,
    warnings,
    ...(options.agentId === undefined ? {} : { agentId: options.agentId }),
    ...(options.maxTextLength ? { maxTextLength: options.maxTextLength } : {}),
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
      return await callChecked(await catalog.current(offered), rawArgs, callOptions, audited, context);
    } catch (error) {
      audited?.failed(error);
      throw error;
    }
  };

  const resolve = (name: string): RoutedTool => {
    const routed = catalog.router.resolve(name);
    if (routed) return routed;
    throw unknownTool(name, catalog.router, guard, catalog.mode);
  };

  const resources = options.resources
    ? createResourceTools(registry, {
        guard,
        ...(offers ? { offers } : {}),
        ...shared(options),
        servers: serverNames,
      })
    : undefined;

  const skills =
    options.skills === false
      ? undefined
      : createSkillTools(registry, {
          guard,
          ...(offers ? { offers } : {}),
          ...shared(options),
          servers: serverNames,
        });

  await Promise.all([catalog.refresh(), skills?.refresh()]);
  const unsubscribe = catalog.follow();

  return {
    get tools() {
      const offered = catalog.mode === 'search' ? SEARCH_PAIR : catalog.router.tools.map(asAgentTool);
      return [...offered, ...(resources?.tools ?? []), ...(skills?.tools ?? [])];
    },
    get catalog() {
      return catalog.router.tools;
    },
    get mode() {
      return catalog.mode;
    },
    get warnings() {
      return [...warnings.list];
    },
    async call(name, args, callOptions = {}) {
      // No MCP tool can have these names (see naming.ts: every routed name has a prefix or a separator).
      if (resources?.has(name)) return resources.call(name, args, callOptions);
      if (skills?.has(name)) return skills.call(name, args, callOptions);
      if (catalog.mode === 'search' && name === SEARCH_TOOL) return answerSearch(catalog.router.tools, args);
      if (catalog.mode === 'search' && name === CALL_TOOL) {
        const { target, targetArgs } = callTarget(args);
        return callRouted(resolve(target), targetArgs, callOptions);
      }
      return callRouted(resolve(name), args, callOptions);
    },
    refresh: async () => {
      await Promise.all([catalog.refresh(), skills?.refresh()]);
    },
    close: unsubscribe,
  };
}

/** What the resource and skill pairs take of the set's options, as given. */
function shared(options: AgentToolsOptions) {
  return {
    ...(options.audit ? { audit: options.audit } : {}),
    ...(options.agentId === undefined ? {} : { agentId: options.agentId }),
    ...(options.maxTextLength ? { maxTextLength: options.maxTextLength } : {}),
  };
}

/** A routed tool as the model is given it. */
function asAgentTool({ name, description, parameters, source, tool }: RoutedTool): AgentTool {
  return { name, description, parameters, server: source.id, toolName: tool.name, tool };
}
