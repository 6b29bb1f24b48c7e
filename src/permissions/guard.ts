import type { Tool } from '@modelcontextprotocol/client';
import type { AuditDecision } from '../audit/index.js';
import { type ProfileConfig, type ServerConfig, toolSwitchedOff } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { type Approver, isNobodyApprover } from './approver.js';
import { type ConnectDecision, decide, type PermissionState, toolKey, type Verdict } from './policy.js';
import { profileScope } from './profile-scope.js';
import { toolExclusions } from './tool-exclusions.js';
import { describeToolChange, fingerprintCache } from './tool-fingerprint.js';
import type { PermissionLevel, ToolCallCheckOptions, ToolCallGuard, ToolCallRequest } from './types.js';

/** What `createPermissionGuard` decides with: the level, who is asked, the servers' allow and deny lists, and the tools left out. */
export interface PermissionGuardOptions {
  readonly level: PermissionLevel;
  readonly approver: Approver;
  /**
   * Server configs, for their allow_tools / deny_tools lists; or a lookup, for
   * a front end whose set of servers changes (a gateway reloading its config).
   */
  readonly servers?: readonly ServerConfig[] | ((name: string) => ServerConfig | undefined);
  /** Globs on `<server>.<tool>` or `<tool>`: such tools are neither offered nor callable. */
  readonly excludeTools?: readonly string[];
  /**
   * The profile the session is limited to (`--profile NAME`): a tool it leaves out is
   * neither offered nor callable, and a call of one is refused as "not in profile NAME".
   */
  readonly profile?: ProfileConfig;
}

/** One call as the policy sees it, without its arguments (see {@link PermissionGuard.verdict}). */
export interface VerdictRequest {
  readonly server: string;
  readonly tool: Tool;
}

/** A server an agent is about to be given, for {@link PermissionGuard.consent}. */
export interface ConsentRequest {
  readonly agentId?: string;
  readonly server: string;
  /** Where it is configured (`file:line (layer)`), shown to the person. */
  readonly origin?: string;
  /** The tools it offers now (after the handshake). */
  readonly tools: readonly Tool[];
}

/** The one permission engine (`host.guard()`): decides every call an agent makes, asks the approver when the policy says so, and remembers the answers for the session. */
export interface PermissionGuard extends ToolCallGuard {
  /** The session's decisions so far (for display and tests). */
  readonly state: PermissionState;
  /**
   * Seed 004's connection consent: once per server and session, after its
   * handshake and before any of its tools reaches the model, the person sees
   * the server, where it is configured and its tools, and allows all of them,
   * asks to confirm each call, or denies the server (whose tools must then
   * never be offered). `yolo` allows without asking; `sandboxed` denies.
   * Allowing approves the tool definitions shown: a later change asks again.
   */
  consent(request: ConsentRequest): Promise<ConnectDecision>;
  /** Allow every tool of `server` for the session without asking (`/mcp connect --allow-all`). */
  allowAll(server: string, tools?: readonly Tool[]): void;
  /**
   * Whether `tool` of `server` is offered at all: not excluded by `excludeTools`, and not
   * switched off by the server's own allow / deny lists. What is not offered is never listed.
   */
  offers(server: string, tool: string): boolean;
  /** The profile this session is limited to (`PermissionGuardOptions.profile`), by name. */
  readonly profile: string | undefined;
  /**
   * Whether the profile leaves out `tool` of `server` (without a tool: the whole server),
   * so that a front end can refuse a call of it by name as "not in profile", not as unknown.
   */
  outOfProfile(server: string, tool?: string): boolean;
  /**
   * The policy's verdict on a call now, from the level, the config's lists and
   * the session's answers so far; nobody is asked and nothing is remembered.
   * `check()` acts on the same verdict.
   */
  verdict(request: VerdictRequest): Verdict;
  /**
   * For a front end that cannot wait on a person (the gateway): undefined when
   * the call may go ahead now, else why not and how to allow it, as one line
   * to return in its place. What would be put to a person is refused in the
   * words of a {@link nobodyApprover}. A call it lets run counts as run: a
   * read-only tool allowed unasked is remembered as `check()` remembers it.
   * Synchronous: nothing is awaited on the
   * allowed path.
   */
  refusal(request: VerdictRequest): string | undefined;
  /**
   * How the policy settles a call now without asking anyone, for the audit log: allowed (by the
   * level, a rule, a read-only annotation or an earlier answer) or denied (by a rule or an
   * earlier answer); undefined when it would put a question.
   */
  settled(request: VerdictRequest): AuditDecision | undefined;
  /**
   * A guard for one more session under the same policy (level, the servers' lists, exclusions),
   * with answers of its own, asked of `approver`: the gateway keeps one per client session, so
   * one client's "allow all" never lets another client's calls through. `answers`: where to start
   * from (copied), instead of nothing answered yet.
   */
  withApprover(approver: Approver, answers?: PermissionAnswers): PermissionGuard;
}

/**
 * A session's answers so far, to start another guard of the same policy from: a 2026-07-28
 * client over HTTP has no session, so the gateway carries its answers from one request to the next.
 */
export type PermissionAnswers = Pick<PermissionState, 'connect' | 'approved'>;

/**
 * The permission layer as a ToolCallGuard: `decide()` says what to do, the
 * approver is asked when a person must decide, and the answers are kept for
 * the session. Concurrent calls to a server share one connect question.
 */
export function createPermissionGuard(options: PermissionGuardOptions): PermissionGuard {
  return buildGuard(options, new Versioned());
}

/** A map that counts its changes, so a verdict worked out from it knows when it went stale. */
class Versioned<K, V> extends Map<K, V> {
  version = 0;
  override set(key: K, value: V): this {
    this.version += 1;
    return super.set(key, value);
  }
  override delete(key: K): boolean {
    this.version += 1;
    return super.delete(key);
  }
  override clear(): void {
    this.version += 1;
    super.clear();
  }
}

type Approvals = Versioned<string, { fingerprint: string; tool: Tool }>;

/** A verdict worked out once, and what it was worked out from. */
interface Ruled {
  readonly server: string;
  readonly config: ServerConfig | undefined;
  readonly version: number;
  readonly verdict: Verdict;
}

/**
 * What one guard's paths (its check, verdicts, consent and audit) share: its policy, its session's
 * answers and approvals, and the verdicts worked out from them.
 */
interface GuardSession {
  readonly options: PermissionGuardOptions;
  readonly state: PermissionState;
  readonly connect: Versioned<string, ConnectDecision>;
  readonly approved: Approvals;
  /** The policy's, not a session's: every guard made by `withApprover` shares it. */
  readonly ranUnasked: Approvals;
  /** One question per server however many ask at once (see `askConnect`). */
  readonly pendingConnect: Map<string, Promise<ConnectDecision>>;
  readonly configOf: (name: string) => ServerConfig | undefined;
  readonly excluded: ReturnType<typeof toolExclusions>;
  readonly inProfile: (server: string, tool?: string) => boolean;
  readonly fingerprintOf: ReturnType<typeof fingerprintCache>;
  /** Servers allowed whole by a rule (`--allow`, `/mcp connect --allow-all`), not by an answer. */
  readonly allowedByRule: Set<string>;
  /** Each tool's last verdict (see `verdict`). */
  readonly ruled: WeakMap<Tool, Ruled>;
}

/** `ranUnasked` is the policy's, not a session's: every guard made by `withApprover` shares it. */
function buildGuard(
  options: PermissionGuardOptions,
  ranUnasked: Approvals,
  answers?: PermissionAnswers,
): PermissionGuard {
  const connect = new Versioned<string, ConnectDecision>(answers?.connect);
  const approved: Approvals = new Versioned(answers?.approved);
  const { profile } = options;
  const inProfile = profile ? profileScope(profile) : () => true;
  const g: GuardSession = {
    options,
    state: { level: options.level, connect, approved, ranUnasked },
    connect,
    approved,
    ranUnasked,
    pendingConnect: new Map(),
    configOf: serverLookup(options.servers),
    excluded: toolExclusions(options.excludeTools ?? []),
    inProfile,
    fingerprintOf: fingerprintCache(),
    allowedByRule: new Set(),
    ruled: new WeakMap(),
  };
  return {
    state: g.state,
    check: (request, checkOptions) => checkCall(g, request, checkOptions),
    consent: async (request) => {
      if (options.level === 'sandboxed') return 'deny';
      if (options.level === 'yolo') return 'allow-all';
      return askConnect(g, request);
    },
    allowAll: (server, tools = []) => {
      connect.set(server, 'allow-all');
      g.allowedByRule.add(server);
      approve(g, server, tools);
    },
    offers: (server, tool) =>
      inProfile(server, tool) &&
      !g.excluded(server, tool) &&
      toolSwitchedOff(g.configOf(server), tool) === undefined,
    profile: profile?.name,
    outOfProfile: (server, tool) => !inProfile(server, tool),
    verdict: (request) => verdict(g, request),
    refusal: (request) => refusal(g, request),
    settled: (request) => settledBy(g, request.server, verdict(g, request)),
    withApprover: (approver, answers) => buildGuard({ ...options, approver }, ranUnasked, answers),
  };
}

/**
 * Running a believed read-only tool unasked records the definition it ran under, so that the
 * same tool coming back with other annotations (or words) is asked about again.
 */
function ranUnder(g: GuardSession, server: string, tool: Tool, ruled: Verdict): void {
  const key = toolKey(server, tool.name);
  if (ruled.kind === 'allow' && ruled.because === 'read-only' && !g.ranUnasked.has(key))
    g.ranUnasked.set(key, { fingerprint: g.fingerprintOf(tool), tool });
}

function approve(g: GuardSession, server: string, tools: readonly Tool[]): void {
  for (const tool of tools)
    g.approved.set(toolKey(server, tool.name), { fingerprint: g.fingerprintOf(tool), tool });
}

/** One question per server however many ask at once; the first answer stands for the session. */
async function askConnect(
  g: GuardSession,
  request: ConsentRequest,
  signal?: AbortSignal,
): Promise<ConnectDecision> {
  const { connect, pendingConnect } = g;
  const decided = connect.get(request.server);
  if (decided) return decided;
  let pending = pendingConnect.get(request.server);
  if (!pending) {
    // One question for everyone who waits on it: it ends with the signal of whoever asked first.
    pending = g.options.approver.askConnect(request, signal ? { signal } : {});
    pendingConnect.set(request.server, pending);
  }
  const answer = await pending.finally(() => pendingConnect.delete(request.server));
  if (!connect.has(request.server)) {
    connect.set(request.server, answer);
    if (answer !== 'deny') approve(g, request.server, request.tools);
  }
  return connect.get(request.server) as ConnectDecision;
}

/** ` (why nobody can be asked)`, when the approver says. */
function nobodyToAsk(g: GuardSession): string {
  const { approver } = g.options;
  return 'reason' in approver ? ` (${String((approver as { reason: unknown }).reason)})` : '';
}

function deny(request: ToolCallRequest, reason: string, fix: string): McpxError {
  return new McpxError(
    ErrorCode.PermissionDenied,
    `calling '${request.server}' tool '${request.tool.name}' was denied: ${reason}`,
    {
      server: request.server,
      tool: request.tool.name,
      fixes: [fix],
    },
  );
}

/**
 * Each tool's last verdict: the gateway asks about every call twice or more (to choose its
 * path, then to decide, then to record who decided). It stands while the tool is the same
 * definition (a re-listing makes new objects), the server's config the same entry, and no
 * answer, approval or unasked run was recorded since (the maps' versions only grow, so
 * their sum changes with any of them); the level, profile and exclusions never change.
 */
function verdict(g: GuardSession, { server, tool }: VerdictRequest): Verdict {
  const config = g.configOf(server);
  const version = g.connect.version + g.approved.version + g.ranUnasked.version;
  const known = g.ruled.get(tool);
  if (known && known.server === server && known.config === config && known.version === version)
    return known.verdict;
  const fresh = decideNow(g, server, tool, config);
  g.ruled.set(tool, { server, config, version, verdict: fresh });
  return fresh;
}

function decideNow(g: GuardSession, server: string, tool: Tool, config: ServerConfig | undefined): Verdict {
  const { profile } = g.options;
  return decide(g.state, {
    server,
    tool,
    fingerprint: g.fingerprintOf(tool),
    ...(profile && !g.inProfile(server, tool.name) ? { outOfProfile: profile.name } : {}),
    ...(g.excluded(server, tool.name) ? { excluded: true } : {}),
    ...(config?.allowTools ? { allowTools: config.allowTools } : {}),
    ...(config?.denyTools ? { denyTools: config.denyTools } : {}),
    ...(config && annotationsBelieved(config) ? { believeAnnotations: true } : {}),
  });
}

/** What a nobody approver says in place of the question `verdict` would put to a person. */
function unasked(
  g: GuardSession,
  server: string,
  tool: Tool,
  ruled: Exclude<Verdict, { kind: 'allow' | 'deny' }>,
): string | undefined {
  const { approver, level } = g.options;
  if (!isNobodyApprover(approver)) return undefined;
  const { kind } = ruled;
  const question = kind === 'ask-connect' ? 'connect' : kind === 'ask-call' ? 'call' : 'changed';
  const because = 'because' in ruled && ruled.because ? { because: ruled.because } : {};
  const changes = kind === 'ask-changed' ? { changes: describeToolChange(ruled.approved, tool) } : {};
  return approver.refusal({ server, tool, level, kind: question, ...because, ...changes });
}

function refusal(g: GuardSession, request: VerdictRequest): string | undefined {
  const { server, tool } = request;
  const ruled = verdict(g, request);
  ranUnder(g, server, tool, ruled);
  if (ruled.kind === 'allow') return undefined;
  if (ruled.kind === 'deny') return `mcpx refused '${tool.name}': ${ruled.reason} (${ruled.fix})`;
  return (
    unasked(g, server, tool, ruled) ??
    `mcpx refused '${tool.name}' of '${server}': permission '${g.options.level}' asks a person first${nobodyToAsk(g)}`
  );
}

function settledBy(g: GuardSession, server: string, ruling: Verdict): AuditDecision | undefined {
  if (ruling.kind === 'allow') {
    const by =
      ruling.because === 'read-only'
        ? 'read-only'
        : g.options.level === 'yolo'
          ? 'level'
          : g.allowedByRule.has(server)
            ? 'rule'
            : 'session';
    return { result: 'allowed', by };
  }
  if (ruling.kind === 'deny')
    return { result: 'denied', by: ruling.session ? 'session' : 'rule', reason: ruling.reason };
  return undefined;
}

/** Who said yes (a nobody approver never does). */
function answerer(g: GuardSession) {
  return g.options.approver.answerer ?? 'program';
}

/** Who said no. */
function refuser(g: GuardSession) {
  const { approver } = g.options;
  return isNobodyApprover(approver) || 'reason' in approver ? ('nobody' as const) : answerer(g);
}

/** The guard's check of one call: the verdict, a person asked where it says so, the answer kept. */
async function checkCall(
  g: GuardSession,
  request: ToolCallRequest,
  checkOptions: ToolCallCheckOptions = {},
): Promise<void> {
  const { options, approved, connect } = g;
  const told = checkOptions.onDecision ?? (() => {});
  const asking = checkOptions.signal ? { signal: checkOptions.signal } : {};
  /** The question a person answered yes to on the way, if any: the call is then confirmed, not allowed. */
  let asked: 'connect' | 'call' | 'changed' | undefined;
  const denied = (error: McpxError, by: AuditDecision & { result: 'denied' }): McpxError => {
    told(by);
    return error;
  };
  const fingerprint = g.fingerprintOf(request.tool);
  const key = toolKey(request.server, request.tool.name);
  const question = {
    ...(request.agentId === undefined ? {} : { agentId: request.agentId }),
    server: request.server,
    tool: request.tool,
    args: request.args,
  };
  for (;;) {
    const ruling = verdict(g, request);
    if (ruling.kind !== 'allow' && ruling.kind !== 'deny') {
      const refused = unasked(g, request.server, request.tool, ruling);
      if (refused !== undefined)
        throw denied(
          new McpxError(ErrorCode.PermissionDenied, refused, {
            server: request.server,
            tool: request.tool.name,
          }),
          { result: 'denied', by: 'nobody', reason: refused },
        );
    }
    const byAnswer = (reason: string, fix: string) => {
      const error = deny(request, reason, fix);
      return denied(error, { result: 'denied', by: refuser(g), reason: error.message });
    };
    switch (ruling.kind) {
      case 'allow':
        ranUnder(g, request.server, request.tool, ruling);
        told(
          asked
            ? { result: 'confirmed', by: answerer(g), question: asked }
            : (settledBy(g, request.server, ruling) as AuditDecision),
        );
        return;
      case 'deny':
        throw denied(
          deny(request, ruling.reason, ruling.fix),
          settledBy(g, request.server, ruling) as AuditDecision & { result: 'denied' },
        );
      case 'ask-connect': {
        // The host did not ask up front (consent()): ask now, with what is known of the server.
        const answer = await askConnect(g, { ...question, tools: [request.tool] }, checkOptions.signal);
        if (answer === 'deny')
          throw byAnswer(
            `using '${request.server}' was not allowed${nobodyToAsk(g)}`,
            'allow it when asked, or run with --permission yolo',
          );
        asked = 'connect';
        continue;
      }
      case 'ask-call': {
        const answer = await options.approver.askCall(question, asking);
        if (answer === 'deny')
          throw byAnswer(`the call was not allowed${nobodyToAsk(g)}`, 'allow it when asked');
        approved.set(key, { fingerprint, tool: request.tool });
        // "Allow always" covers this server for the session (seed 004), not only this tool.
        if (answer === 'always') connect.set(request.server, 'allow-all');
        told({ result: 'confirmed', by: answerer(g), question: 'call' });
        return;
      }
      case 'ask-changed': {
        const changes = describeToolChange(ruling.approved, request.tool);
        const answer = await options.approver.askChanged({ ...question, changes }, asking);
        if (answer === 'deny') {
          throw byAnswer(
            `its definition changed since it was approved (${changes.join('; ')})${nobodyToAsk(g)}`,
            'review the change and approve it when asked',
          );
        }
        if (answer === 'always') approved.set(key, { fingerprint, tool: request.tool });
        told({ result: 'confirmed', by: answerer(g), question: 'changed' });
        return;
      }
    }
  }
}

/**
 * A server's annotations are believed only where the user vouches for the
 * server: an entry of the user's own files (or of a user-level client app file they
 * import) or a project entry approved in the trust store. Not an unapproved
 * entry (a repository's, or one a repository imports), not an ad-hoc server
 * named on a command line.
 */
function annotationsBelieved(config: ServerConfig): boolean {
  const origin: ServerConfig['origin'] | undefined = config.origin;
  return !config.unapproved && origin !== undefined && origin.layer !== 'adhoc';
}

function serverLookup(
  servers: PermissionGuardOptions['servers'],
): (name: string) => ServerConfig | undefined {
  if (typeof servers === 'function') return servers;
  const configs = new Map((servers ?? []).map((s) => [s.name, s]));
  return (name) => configs.get(name);
}
