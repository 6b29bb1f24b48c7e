/**
 * The consent a tool call needs before it goes upstream, when the policy would put it to a
 * person: asked of the calling client's person when the client can show a form, else the
 * call is refused with how to allow it.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { AuditDecision } from '../audit/index.js';
import type { PermissionGuard } from '../permissions/index.js';
import type { ServerRegistry } from '../registry/index.js';
import { askClient } from './client-questions.js';
import { AskLater, CONSENT_INPUT_KEY, canElicitForm, type Elicit, replaying } from './consent.js';
import { type DownstreamCall, signalOf, type ToolRoute } from './downstream-call.js';

/** What of the gateway core the consent needs: its policy, and the servers' tool lists. */
export interface ConsentCore {
  readonly guard: PermissionGuard;
  readonly registry: ServerRegistry;
}

/**
 * What to return instead of calling, or undefined when the call may go ahead. What the
 * policy would put to a person goes to the calling client's person when the client
 * declared form elicitation (never to an upstream); else it is refused with how to allow it.
 * A 2026-07-28 client over HTTP is asked in sealed rounds, so nothing waits on one instance;
 * a retry carrying the sealed state of an upstream's round of this very call (same client,
 * tool and arguments) was let through before it reached the upstream: it is not asked again.
 */
export async function consentBeforeCall(
  core: ConsentCore,
  route: ToolRoute,
  args: Record<string, unknown>,
  call: DownstreamCall,
  decided: (decision: AuditDecision) => void,
): Promise<CallToolResult | undefined> {
  const refused = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });
  const settled = core.guard.settled(route);
  if (settled) decided(settled);
  const refusal = core.guard.refusal(route);
  if (refusal === undefined) return undefined;
  const { consent, stateless } = call;
  if (!consent || !canElicitForm(call.clientCapabilities)) {
    if (!settled) decided({ result: 'denied', by: 'nobody', reason: refusal });
    return refused(refusal);
  }
  if (core.guard.verdict(route).kind === 'deny') return refused(refusal);
  // Let through in an earlier round of this very call, where its client's person said yes.
  if ((stateless?.resume?.rounds ?? 0) > 0) {
    decided({ result: 'confirmed', by: 'client', question: 'call' });
    return undefined;
  }
  const sealed = call.ctx.http ? stateless : undefined;
  const elicit: Elicit = sealed
    ? replaying(sealed.resume?.answers ?? [])
    : (request) => askClient(call, request, signalOf(call), CONSENT_INPUT_KEY);
  try {
    const answer = await consent.decide(
      {
        server: route.server,
        tool: route.tool,
        args,
        serverTools: core.registry.status(route.server).tools as Tool[],
        guard: core.guard,
        decided,
      },
      elicit,
    );
    return answer === undefined ? undefined : refused(answer);
  } catch (error) {
    if (sealed && error instanceof AskLater)
      return sealed.ask(CONSENT_INPUT_KEY, error.request, error.answers) as never;
    throw error;
  }
}
