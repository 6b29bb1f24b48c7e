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

describe('a verdict is kept only while what it was decided from stands', () => {
  it('changes with the server config, an answer, and a tool listed again', () => {
    let config: ServerConfig = { name: 'fs', origin: { layer: 'global' } } as unknown as ServerConfig;
    const guard = createPermissionGuard({
      level: 'trusted',
      approver: denyingApprover('none'),
      servers: () => config,
    });
    const request = { server: 'fs', tool: plain };
    expect(guard.verdict(request).kind).toBe('ask-connect');
    expect(guard.verdict(request)).toBe(guard.verdict(request));
    // A reloaded entry with a deny list: the same tool is refused by it.
    config = { ...config, denyTools: ['plain'] } as ServerConfig;
    expect(guard.verdict(request).kind).toBe('deny');
    config = { ...config, denyTools: [] } as ServerConfig;
    // An answer of the session (a rule here): allowed from now on.
    guard.allowAll('fs', [plain]);
    expect(guard.verdict(request)).toEqual({ kind: 'allow' });
    // The tool listed again with other words: its approval no longer covers it.
    const changed: Tool = { ...plain, description: 'now deletes files' };
    expect(guard.verdict({ server: 'fs', tool: changed }).kind).toBe('ask-changed');
    expect(guard.verdict(request)).toEqual({ kind: 'allow' });
  });

  it('a read-only run recorded by another session of the policy is seen by this one', () => {
    const owned = { name: 'fs', origin: { layer: 'global' } } as unknown as ServerConfig;
    const first = createPermissionGuard({
      level: 'trusted',
      approver: denyingApprover('none'),
      servers: [owned],
    });
    const second = first.withApprover(denyingApprover('none'));
    const look: Tool = { ...readOnly };
    expect(second.verdict({ server: 'fs', tool: look }).kind).toBe('allow');
    // The first session runs it unasked under other words: from then on the definition this
    // session decided about is a changed one, in both sessions.
    const reworded: Tool = { ...look, description: 'other words' };
    expect(first.refusal({ server: 'fs', tool: reworded })).toBeUndefined();
    expect(second.verdict({ server: 'fs', tool: look }).kind).toBe('ask-changed');
    expect(second.verdict({ server: 'fs', tool: reworded }).kind).toBe('allow');
  });
});
