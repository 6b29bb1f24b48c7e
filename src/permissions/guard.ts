import type { Tool } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/types.js';
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

export interface PermissionGuard extends ToolCallGuard {
  /** The session's decisions so far (for display and tests). */
  readonly state: PermissionState;
}

/**
 * The permission layer as a ToolCallGuard: `decide()` says what to do, the
 * approver is asked when a person must decide, and the answers are kept for
 * the session. Concurrent calls to a server share one connect question.
 */
export function createPermissionGuard(options: PermissionGuardOptions): PermissionGuard {
  const connect = new Map<string, ConnectDecision>();
  const alwaysAllowed = new Set<string>();
  const approved = new Map<string, { fingerprint: string; tool: Tool }>();
  const pendingConnect = new Map<string, Promise<ConnectDecision>>();
  const configs = new Map((options.servers ?? []).map((s) => [s.name, s]));
  const state: PermissionState = { level: options.level, connect, alwaysAllowed, approved };

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
          let pending = pendingConnect.get(request.server);
          if (!pending) {
            pending = options.approver.askConnect(question);
            pendingConnect.set(request.server, pending);
          }
          const answer = await pending.finally(() => pendingConnect.delete(request.server));
          if (!connect.has(request.server)) {
            connect.set(request.server, answer);
            // Approving the server approves the definitions it offers now.
            if (answer !== 'deny') approved.set(key, { fingerprint, tool: request.tool });
          }
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
          if (answer === 'always') alwaysAllowed.add(key);
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
  return { state, check };
}
