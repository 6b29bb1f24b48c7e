import type { Tool } from '@modelcontextprotocol/client';
import type { PermissionLevel } from './types.js';

/** The answer to "may this agent use this server?", given once per server and session. */
export type ConnectDecision = 'allow-all' | 'confirm-each' | 'deny';
/** The answer to one call. `always`: every tool of this server, for the rest of the session (seed 004). */
export type CallDecision = 'once' | 'always' | 'deny';

/** What the session has decided so far. */
export interface PermissionState {
  readonly level: PermissionLevel;
  /** Per server; `allow-all` also after a call was answered `always`. */
  readonly connect: ReadonlyMap<string, ConnectDecision>;
  /** `server\0tool` → the definition (and its fingerprint) a person approved. */
  readonly approved: ReadonlyMap<string, { readonly fingerprint: string; readonly tool: Tool }>;
  /**
   * `server\0tool` → the definition a believed `readOnlyHint` let run unasked, shared by every
   * session of one policy: the same tool coming back changed is asked about, as an approved one is.
   */
  readonly ranUnasked?: ReadonlyMap<string, { readonly fingerprint: string; readonly tool: Tool }>;
}

/** What `decide` is asked about: one tool of one server, with the config's lists and the session's choices. */
export interface PolicyRequest {
  readonly server: string;
  readonly tool: Tool;
  readonly fingerprint: string;
  /** Left out of the session altogether (`excludeTools`): never offered, never callable. */
  readonly excluded?: boolean;
  /** Left out by the session's profile (`--profile`), named here: never offered, never callable. */
  readonly outOfProfile?: string;
  /** The server's allow/deny lists from the config. */
  readonly allowTools?: readonly string[];
  readonly denyTools?: readonly string[];
  /**
   * Whether the tool's annotations can be believed: the server comes from the
   * user's own files or an approved project entry, not from an unapproved,
   * imported or ad-hoc definition. Otherwise its annotations change nothing.
   */
  readonly believeAnnotations?: boolean;
}

/** What `decide` answers: allow, deny (with why and how to fix it), or ask a question first. */
export type Verdict =
  /** `because`: allowed by a believed `readOnlyHint` rather than by a person's answer or the level. */
  | { readonly kind: 'allow'; readonly because?: 'read-only' }
  /** `session`: denied by an earlier answer in this session rather than by a rule. */
  | { readonly kind: 'deny'; readonly reason: string; readonly fix: string; readonly session?: true }
  /** `because`: the tool's believed annotations will ask for every call, whatever the answer. */
  | { readonly kind: 'ask-connect'; readonly because?: ConfirmHint }
  | { readonly kind: 'ask-call'; readonly because?: ConfirmHint }
  | { readonly kind: 'ask-changed'; readonly approved: Tool };

/** Which believed annotation makes every call of a tool put to a person. */
export type ConfirmHint = 'destructive' | 'open-world';

export const toolKey = (server: string, tool: string) => `${server}\0${tool}`;

/**
 * The whole permission policy as a pure function: what to do with one call,
 * given the level, the session's decisions and the config's lists. The guard
 * does the asking and remembers the answers.
 */
export function decide(state: PermissionState, request: PolicyRequest): Verdict {
  const { server, tool } = request;
  if (state.level === 'sandboxed') {
    return {
      kind: 'deny',
      reason: 'this agent is sandboxed: it has no MCP access',
      fix: 'run with --permission trusted or yolo',
    };
  }
  if (request.outOfProfile !== undefined) {
    return {
      kind: 'deny',
      reason: `'${tool.name}' of '${server}' is not in profile '${request.outOfProfile}'`,
      fix: `add it to the profile's servers or tools, or run without --profile ${request.outOfProfile}`,
    };
  }
  if (request.excluded) {
    return {
      kind: 'deny',
      reason: `'${tool.name}' of '${server}' is excluded from this session's tools`,
      fix: 'remove the exclusion pattern that matches it',
    };
  }
  if (request.denyTools?.includes(tool.name)) {
    return {
      kind: 'deny',
      reason: `'${tool.name}' is in the deny_tools list of '${server}'`,
      fix: 'remove it from deny_tools in the config',
    };
  }
  if (request.allowTools && !request.allowTools.includes(tool.name)) {
    return {
      kind: 'deny',
      reason: `'${tool.name}' is not in the allow_tools list of '${server}'`,
      fix: 'add it to allow_tools in the config',
    };
  }
  const key = toolKey(server, tool.name);
  const approved = state.approved.get(key) ?? state.ranUnasked?.get(key);
  // A definition that changed after a person approved it is shown again, whatever the level.
  if (approved && approved.fingerprint !== request.fingerprint)
    return { kind: 'ask-changed', approved: approved.tool };
  if (state.level === 'yolo') return { kind: 'allow' };
  const connect = state.connect.get(server);
  if (connect === 'deny') {
    return {
      kind: 'deny',
      reason: `using '${server}' was denied for this session`,
      fix: 'start a new session to be asked again',
      session: true,
    };
  }
  const hint = request.believeAnnotations ? annotationRule(tool) : undefined;
  // A believed read-only tool needs no question at all, not even the connect one (issue 25, item 5).
  if (hint === 'read-only') return { kind: 'allow', because: 'read-only' };
  const because = hint === undefined ? {} : { because: hint };
  if (connect === undefined) return { kind: 'ask-connect', ...because };
  // A believed destructive or open-world tool is confirmed on every call, even after allow-all.
  if (connect === 'allow-all' && hint === undefined) return { kind: 'allow' };
  return { kind: 'ask-call', ...because };
}

/**
 * What a tool's own annotations ask of the policy (MCP defaults: readOnlyHint
 * false, destructiveHint and openWorldHint true when absent). Only explicit
 * hints count, so that a tool without annotations keeps today's rules; a
 * read-only tool's destructiveHint means nothing, its openWorldHint still does.
 */
function annotationRule(tool: Tool): 'read-only' | ConfirmHint | undefined {
  const hints = tool.annotations;
  if (!hints) return undefined;
  if (hints.openWorldHint === true) return 'open-world';
  if (hints.readOnlyHint === true) return 'read-only';
  if (hints.destructiveHint === true) return 'destructive';
  return undefined;
}
