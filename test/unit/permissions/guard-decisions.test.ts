import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { AuditDecision } from '../../../src/audit/index.js';
import type { ServerConfig } from '../../../src/config/index.js';
import {
  createPermissionGuard,
  denyingApprover,
  type PermissionGuard,
  scriptedApprover,
} from '../../../src/permissions/index.js';

const plain: Tool = { name: 'plain', inputSchema: { type: 'object' } };
const readOnly: Tool = { name: 'look', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } };
const own = { name: 'fs', origin: { layer: 'global' }, denyTools: ['rm'] } as unknown as ServerConfig;

/** How `guard` decided a call of `tool`, as the audit log is told. */
async function decisionOf(
  guard: PermissionGuard,
  tool: Tool,
  server = 'fs',
): Promise<AuditDecision | undefined> {
  let told: AuditDecision | undefined;
  await guard.check({ server, tool, args: {} }, { onDecision: (d) => (told = d) }).catch(() => undefined);
  return told;
}

describe('the guard tells how it decided each call (the audit log)', () => {
  it('allowed: by the level, a read-only annotation, a rule, an earlier answer', async () => {
    const yolo = createPermissionGuard({ level: 'yolo', approver: denyingApprover('none') });
    expect(await decisionOf(yolo, plain)).toEqual({ result: 'allowed', by: 'level' });
    const trusted = createPermissionGuard({
      level: 'trusted',
      approver: scriptedApprover({ connect: ['allow-all'] }),
      servers: [own],
    });
    expect(await decisionOf(trusted, readOnly)).toEqual({ result: 'allowed', by: 'read-only' });
    expect(await decisionOf(trusted, plain)).toMatchObject({
      result: 'confirmed',
      by: 'program',
      question: 'connect',
    });
    expect(await decisionOf(trusted, plain)).toEqual({ result: 'allowed', by: 'session' });
    trusted.allowAll('other');
    expect(await decisionOf(trusted, plain, 'other')).toEqual({ result: 'allowed', by: 'rule' });
    expect(trusted.settled({ server: 'other', tool: plain })).toEqual({ result: 'allowed', by: 'rule' });
  });

  it('confirmed and denied by whoever answered; denied by a rule, an earlier answer, or nobody', async () => {
    const person = {
      ...scriptedApprover({ connect: ['confirm-each'], call: ['once', 'deny'] }),
      answerer: 'terminal' as const,
    };
    const guard = createPermissionGuard({ level: 'trusted', approver: person, servers: [own] });
    expect(await decisionOf(guard, plain)).toEqual({ result: 'confirmed', by: 'terminal', question: 'call' });
    expect(await decisionOf(guard, plain)).toMatchObject({ result: 'denied', by: 'terminal' });
    expect(await decisionOf(guard, { ...plain, name: 'rm' })).toMatchObject({
      result: 'denied',
      by: 'rule',
      reason: "'rm' is in the deny_tools list of 'fs'",
    });
    const denier = createPermissionGuard({
      level: 'trusted',
      approver: scriptedApprover({ connect: ['deny'] }),
    });
    expect(await decisionOf(denier, plain)).toMatchObject({ result: 'denied', by: 'program' });
    expect(await decisionOf(denier, plain)).toMatchObject({ result: 'denied', by: 'session' });
    const nobody = createPermissionGuard({ level: 'trusted', approver: denyingApprover('no terminal') });
    expect(await decisionOf(nobody, plain)).toMatchObject({ result: 'denied', by: 'nobody' });
    const sandboxed = createPermissionGuard({ level: 'sandboxed', approver: denyingApprover('x') });
    expect(await decisionOf(sandboxed, plain)).toMatchObject({ result: 'denied', by: 'rule' });
  });
});
