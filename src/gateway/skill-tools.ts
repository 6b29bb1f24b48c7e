import { type CallToolResult, isInputRequiredResult, type Tool } from '@modelcontextprotocol/server';
import type { AuditCaller } from '../audit/index.js';
import { ErrorCode, McpxError, toMcpxError } from '../errors/index.js';
import type { ToolCallGuard } from '../permissions/index.js';
import { type AgentTool, CallContinues, createSkillTools, type SkillTools } from '../tools/index.js';
import { consentBeforeCall } from './call-consent.js';
import type { GatewayCore } from './core.js';
import { type DownstreamCall, signalOf } from './downstream-call.js';

/** Who asked, for the audit log: the gateway's client, as a tool call's record names it. */
export function auditedAs(call: DownstreamCall): AuditCaller {
  return {
    client: 'gateway',
    session: call.client,
    ...(call.clientInfo ? { clientInfo: call.clientInfo } : {}),
  };
}

/** The gateway's own skill tools: `mcpx__` as a server's tools are `<server>__`. */
export const GATEWAY_SKILL_TOOLS = { load: 'mcpx__load_skill', read: 'mcpx__read_skill_file' } as const;

const perCore = new WeakMap<GatewayCore, GatewaySkills>();

/** The one {@link GatewaySkills} of `core`. */
export function gatewaySkills(core: GatewayCore): GatewaySkills {
  let skills = perCore.get(core);
  if (!skills) {
    skills = new GatewaySkills(core);
    perCore.set(core, skills);
  }
  return skills;
}

/**
 * The upstreams' skills (SEP-2640) for any MCP client, as two tools of the gateway's own:
 * `mcpx__load_skill`, whose description is the catalogue (each skill's `<server>.<skill>` id and
 * description, tagged with its server), and `mcpx__read_skill_file`. Every file is read at mcpx
 * and verified (`src/skills/`) before it goes on, fenced and tagged with its origin; a refused one
 * goes on as an error. Each load and read is decided as a call of the skill's `skill:<name>`
 * action on its server, as a tool call is (the client's person asked by form when it can show
 * one, else refused with how to allow it). The catalogue is listed once (manifests only) and
 * again whenever an upstream comes up or goes down.
 */
export class GatewaySkills {
  readonly #core: GatewayCore;
  #listed: Promise<readonly AgentTool[]> | undefined;
  readonly #merged = new WeakMap<readonly Tool[], { pair: readonly unknown[]; tools: readonly Tool[] }>();

  constructor(core: GatewayCore) {
    this.#core = core;
    const up = (state: string) => state === 'ready' || state === 'busy';
    core.registry.on((event) => {
      if (event.type !== 'state' || up(event.state) === up(event.previous)) return;
      this.#listed = undefined;
      // A server that serves skills came up: the pair's catalogue changed with it.
      if (up(event.state) && core.registry.liveConnection(event.server)?.skills.supported)
        core.announceTools();
    });
  }

  /**
   * `served` with the pair after it, while some upstream lists a skill (else `served` itself). The
   * same list object while neither changes: the paginator keeps one snapshot per list.
   */
  async withSkills(served: readonly Tool[]): Promise<readonly Tool[]> {
    this.#listed ??= this.#list();
    const pair = await this.#listed;
    if (pair.length === 0) return served;
    const known = this.#merged.get(served);
    if (known?.pair === pair) return known.tools;
    // A served server's tool of the same public name (a server named `mcpx`) keeps its name.
    const own = pair
      .filter((t) => this.#core.knownTool(t.name) === undefined)
      .map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.parameters as Tool['inputSchema'],
        annotations: { readOnlyHint: true, openWorldHint: false },
      }));
    const tools = [...served, ...own];
    this.#merged.set(served, { pair, tools });
    return tools;
  }

  /** Whether `name` is one of the pair (and no served server's tool has it). */
  has(name: string): boolean {
    return (
      (name === GATEWAY_SKILL_TOOLS.load || name === GATEWAY_SKILL_TOOLS.read) &&
      this.#core.knownTool(name) === undefined
    );
  }

  /** One call of the pair, for the client `call` is from: text, or an error result the model can read. */
  async call(name: string, args: Record<string, unknown>, call: DownstreamCall): Promise<CallToolResult> {
    const core = this.#core;
    const guard: ToolCallGuard = {
      check: async (request, options) => {
        const refused = await consentBeforeCall(
          core,
          { server: request.server, name: request.tool.name, tool: request.tool },
          request.args as Record<string, unknown>,
          call,
          (decision) => options?.onDecision?.(decision),
        );
        if (refused) {
          // A 2026-07-28 client is asked in an input round: answered with it, and called again.
          if (isInputRequiredResult(refused)) throw new CallContinues(refused);
          const text = refused.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
          throw new McpxError(ErrorCode.PermissionDenied, text, { server: request.server });
        }
      },
    };
    try {
      await this.#arrive(signalOf(call));
      const result = await this.#skillTools(guard, auditedAs(call)).call(name, args, {
        signal: signalOf(call),
      });
      return { content: [{ type: 'text', text: result.text }], isError: result.isError };
    } catch (error) {
      if (error instanceof CallContinues) return error.result as CallToolResult;
      const failure = toMcpxError(error);
      if (failure.code === ErrorCode.Cancelled) throw failure;
      const fix = failure.fixes[0] ? ` (${failure.fixes[0]})` : '';
      return {
        content: [{ type: 'text', text: `error [${failure.code}]: ${failure.message}${fix}` }],
        isError: true,
      };
    }
  }

  /**
   * The pair as listed now from the servers up (its definitions made once: the catalogue is in
   * their descriptions). A server that comes up later drops it and announces a tool list change
   * (a server remembered from an earlier run stands in for `tools/list` unwaited, but its skills
   * are not remembered).
   */
  async #list(): Promise<readonly AgentTool[]> {
    const listing = this.#skillTools({ check: async () => {} });
    await listing.refresh().catch(() => undefined);
    return listing.tools;
  }

  /** Each served server up, or failed, or `signal` ended the wait. */
  async #arrive(signal: AbortSignal): Promise<void> {
    const { registry, servers } = this.#core;
    const arrived = Promise.all(servers.map((name) => registry.use(name, async () => {}).catch(() => {})));
    const ended = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.race([arrived, ended]);
  }

  #skillTools(guard: ToolCallGuard, who?: AuditCaller): SkillTools {
    const core = this.#core;
    const trail = core.audit;
    return createSkillTools(core.registry, {
      guard,
      // Each load and read in the audit log as a call of the skill's `skill:<name>` action.
      ...(trail && who ? { audit: { trail, who } } : {}),
      servers: () => core.servers,
      offers: (server, tool) => core.guard.offers(server, tool),
      names: GATEWAY_SKILL_TOOLS,
    });
  }
}
