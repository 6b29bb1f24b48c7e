import type { Tool } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import type { Approver } from './approver.js';
import { type ConnectDecision, decide, type PermissionState, toolKey } from './policy.js';
import { describeToolChange, toolFingerprint } from './tool-fingerprint.js';
import type { PermissionLevel, ToolCallGuard, ToolCallRequest } from './types.js';

export interface PermissionGuardOptions {
  readonly level: PermissionLevel;
  readonly approver: Approver;
  /** Server configs, for their allow_tools / deny_tools lists. */
  readonly servers?: readonly ServerConfig[];
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
}

/**
 * The permission layer as a ToolCallGuard: `decide()` says what to do, the
 * approver is asked when a person must decide, and the answers are kept for
 * the session. Concurrent calls to a server share one connect question.
 */
export function createPermissionGuard(options: PermissionGuardOptions): PermissionGuard {
  const connect = new Map<string, ConnectDecision>();
  const approved = new Map<string, { fingerprint: string; tool: Tool }>();
  const pendingConnect = new Map<string, Promise<ConnectDecision>>();
  const configs = new Map((options.servers ?? []).map((s) => [s.name, s]));
  const state: PermissionState = { level: options.level, connect, approved };

  const approve = (server: string, tools: readonly Tool[]) => {
    for (const tool of tools)
      approved.set(toolKey(server, tool.name), { fingerprint: toolFingerprint(tool), tool });
  };
  /** One question per server however many ask at once; the first answer stands for the session. */
  const askConnect = async (request: ConsentRequest): Promise<ConnectDecision> => {
    const decided = connect.get(request.server);
    if (decided) return decided;
    let pending = pendingConnect.get(request.server);
    if (!pending) {
      pending = options.approver.askConnect(request);
      pendingConnect.set(request.server, pending);
    }
    const answer = await pending.finally(() => pendingConnect.delete(request.server));
    if (!connect.has(request.server)) {
      connect.set(request.server, answer);
      if (answer !== 'deny') approve(request.server, request.tools);
    }
    return connect.get(request.server) as ConnectDecision;
  };
  const consent = async (request: ConsentRequest): Promise<ConnectDecision> => {
    if (options.level === 'sandboxed') return 'deny';
    if (options.level === 'yolo') return 'allow-all';
    return askConnect(request);
  };
  const allowAll = (server: string, tools: readonly Tool[] = []) => {
    connect.set(server, 'allow-all');
    approve(server, tools);
  };

  const deny = (request: ToolCallRequest, reason: string, fix: string) =>
    new McpxError(
      ErrorCode.PermissionDenied,
      `calling '${request.server}' tool '${request.tool.name}' was denied: ${reason}`,
      {
        server: request.server,
        tool: request.tool.name,
        fixes: [fix],
      },
    );
  const nobodyToAsk = () =>
    'reason' in options.approver ? ` (${String((options.approver as { reason: unknown }).reason)})` : '';

  const check = async (request: ToolCallRequest): Promise<void> => {
    const config = configs.get(request.server);
    const fingerprint = toolFingerprint(request.tool);
    const key = toolKey(request.server, request.tool.name);
    const question = {
      ...(request.agentId === undefined ? {} : { agentId: request.agentId }),
      server: request.server,
      tool: request.tool,
      args: request.args,
    };
    for (;;) {
      const verdict = decide(state, {
        server: request.server,
        tool: request.tool,
        fingerprint,
        ...(config?.allowTools ? { allowTools: config.allowTools } : {}),
        ...(config?.denyTools ? { denyTools: config.denyTools } : {}),
      });
      switch (verdict.kind) {
        case 'allow':
          return;
        case 'deny':
          throw deny(request, verdict.reason, verdict.fix);
        case 'ask-connect': {
          // The host did not ask up front (consent()): ask now, with what is known of the server.
          const answer = await askConnect({ ...question, tools: [request.tool] });
          if (answer === 'deny')
            throw deny(
              request,
              `using '${request.server}' was not allowed${nobodyToAsk()}`,
              'allow it when asked, or run with --permission yolo',
            );
          continue;
        }
        case 'ask-call': {
          const answer = await options.approver.askCall(question);
          if (answer === 'deny')
            throw deny(request, `the call was not allowed${nobodyToAsk()}`, 'allow it when asked');
          approved.set(key, { fingerprint, tool: request.tool });
          // "Allow always" covers this server for the session (seed 004), not only this tool.
          if (answer === 'always') connect.set(request.server, 'allow-all');
          return;
        }
        case 'ask-changed': {
          const changes = describeToolChange(verdict.approved, request.tool);
          const answer = await options.approver.askChanged({ ...question, changes });
          if (answer === 'deny') {
            throw deny(
              request,
              `its definition changed since it was approved (${changes.join('; ')})${nobodyToAsk()}`,
              'review the change and approve it when asked',
            );
          }
          if (answer === 'always') approved.set(key, { fingerprint, tool: request.tool });
          return;
        }
      }
    }
  };
  return { state, check, consent, allowAll };
}
