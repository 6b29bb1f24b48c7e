import type { Tool } from '@modelcontextprotocol/client';
import type { AuditCaller, AuditDecision, AuditTrail } from '../audit/index.js';
import type { ToolCallGuard } from '../permissions/index.js';

/** Who decides and who records an action an agent's tool pair takes (resources, skills). */
export interface GuardedCallContext {
  readonly guard: ToolCallGuard;
  readonly audit?: { readonly trail: AuditTrail; readonly who: AuditCaller };
  readonly agentId?: string;
}

/**
 * Thrown by a guard whose question goes on in another request (a 2026-07-28 client answers in
 * an input round, then sends the call again): not a failure, so the call is not recorded now
 * (its retry is). `result` is what the caller answers the request with meanwhile.
 */
export class CallContinues extends Error {
  constructor(readonly result: unknown) {
    super('the call goes on in its next request');
    this.name = 'CallContinues';
  }
}

/**
 * `run`, once the guard allows `tool` of `server` with `args`; audited from the moment it is asked
 * for, like a tool call. `recorded` is what the audit keeps of the result (the result itself
 * unless said).
 */
export async function guardedCall<T>(
  context: GuardedCallContext,
  call: { readonly server: string; readonly tool: Tool; readonly args: Record<string, unknown> },
  signal: AbortSignal | undefined,
  run: () => Promise<T>,
  recorded: (result: T) => unknown = (result) => result,
): Promise<T> {
  const { server, tool, args } = call;
  const audited = context.audit?.trail.begin({ who: context.audit.who, server, tool: tool.name, args });
  try {
    let decision: AuditDecision = { result: 'allowed', by: 'guard' };
    await context.guard.check(
      { ...(context.agentId === undefined ? {} : { agentId: context.agentId }), server, tool, args },
      {
        ...(signal ? { signal } : {}),
        onDecision: (d) => {
          decision = d;
          audited?.decided(d);
        },
      },
    );
    audited?.decided(decision);
    const result = await run();
    audited?.returned(recorded(result));
    return result;
  } catch (error) {
    if (error instanceof CallContinues) audited?.dropped();
    else audited?.failed(error);
    throw error;
  }
}
