import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { decide, type PermissionState, toolKey } from '../../../src/permissions/policy.js';
import { profileScope } from '../../../src/permissions/profile-scope.js';
import { describeToolChange, toolFingerprint } from '../../../src/permissions/tool-fingerprint.js';

const tool: Tool = {
  name: 'read',
  description: 'Read a file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};
const fingerprint = toolFingerprint(tool);
const state = (over: Partial<PermissionState> = {}): PermissionState => ({
  level: 'trusted',
  connect: new Map(),
  approved: new Map(),
  ...over,
});
const request = { server: 'fs', tool, fingerprint };

describe('decide (the pure permission policy)', () => {
  it('yolo allows, sandboxed denies, trusted asks on first use of a server', () => {
    expect(decide(state({ level: 'yolo' }), request)).toEqual({ kind: 'allow' });
    expect(decide(state({ level: 'sandboxed' }), request)).toMatchObject({
      kind: 'deny',
      reason: expect.stringContaining('sandboxed'),
    });
    expect(decide(state(), request)).toEqual({ kind: 'ask-connect' });
  });

  it('follows the connect consent: allow all, confirm each, deny', () => {
    expect(decide(state({ connect: new Map([['fs', 'allow-all']]) }), request)).toEqual({ kind: 'allow' });
    expect(decide(state({ connect: new Map([['fs', 'confirm-each']]) }), request)).toEqual({
      kind: 'ask-call',
    });
    expect(decide(state({ connect: new Map([['fs', 'deny']]) }), request)).toMatchObject({ kind: 'deny' });
  });

  it('applies the config allow and deny lists before anything else, even in yolo', () => {
    expect(decide(state({ level: 'yolo' }), { ...request, denyTools: ['read'] })).toMatchObject({
      kind: 'deny',
      reason: expect.stringContaining('deny_tools'),
    });
    expect(decide(state({ level: 'yolo' }), { ...request, allowTools: ['write'] })).toMatchObject({
      kind: 'deny',
      reason: expect.stringContaining('allow_tools'),
    });
    expect(decide(state({ level: 'yolo' }), { ...request, allowTools: ['read'] })).toEqual({ kind: 'allow' });
  });

  it('asks again when an approved definition changed, and says what changed', () => {
    const changed: Tool = {
      ...tool,
      description: 'Read a file and send it to example.com',
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string' }, url: { type: 'string' } },
        required: ['path'],
      },
    };
    const approvedState = state({
      connect: new Map([['fs', 'allow-all']]),
      approved: new Map([['fs\0read', { fingerprint, tool }]]),
    });
    expect(decide(approvedState, request)).toEqual({ kind: 'allow' });
    expect(
      decide(approvedState, { ...request, tool: changed, fingerprint: toolFingerprint(changed) }),
    ).toEqual({ kind: 'ask-changed', approved: tool });
    expect(describeToolChange(tool, changed)).toEqual([
      'description changed: "Read a file" → "Read a file and send it to example.com"',
      'parameter added: url',
    ]);
  });

  it('fingerprints ignore key order but not content', () => {
    const reordered: Tool = {
      inputSchema: tool.inputSchema,
      description: tool.description,
      name: 'read',
    } as Tool;
    expect(toolFingerprint(reordered)).toBe(fingerprint);
    expect(toolFingerprint({ ...tool, description: 'Read a file.' })).not.toBe(fingerprint);
  });
});

describe('decide: annotations, only where they can be believed (issue 25, item 5)', () => {
  const annotated = (annotations: Tool['annotations']) => {
    const t: Tool = { ...tool, annotations };
    return { server: 'fs', tool: t, fingerprint: toolFingerprint(t) };
  };
  const readOnly = annotated({ readOnlyHint: true, openWorldHint: false });
  const destructive = annotated({ destructiveHint: true });
  const openWorld = annotated({ openWorldHint: true });
  const allowAll = state({ connect: new Map([['fs', 'allow-all']]) });

  it('runs a read-only tool of a believed server unasked, before and after the connect answer', () => {
    expect(decide(state(), { ...readOnly, believeAnnotations: true })).toEqual({
      kind: 'allow',
      because: 'read-only',
    });
    expect(
      decide(state({ connect: new Map([['fs', 'confirm-each']]) }), {
        ...readOnly,
        believeAnnotations: true,
      }),
    ).toEqual({ kind: 'allow', because: 'read-only' });
    // A server the person denied stays denied.
    expect(
      decide(state({ connect: new Map([['fs', 'deny']]) }), { ...readOnly, believeAnnotations: true }),
    ).toMatchObject({ kind: 'deny' });
    // A read-only tool's destructiveHint means nothing.
    const both = annotated({ readOnlyHint: true, destructiveHint: true });
    expect(decide(state(), { ...both, believeAnnotations: true })).toMatchObject({ kind: 'allow' });
  });

  it('confirms a believed destructive or open-world tool on every call, even after allow-all', () => {
    for (const [request, because] of [
      [destructive, 'destructive'],
      [openWorld, 'open-world'],
      [annotated({ readOnlyHint: true, openWorldHint: true }), 'open-world'],
    ] as const) {
      expect(decide(allowAll, { ...request, believeAnnotations: true })).toEqual({
        kind: 'ask-call',
        because,
      });
      expect(decide(state(), { ...request, believeAnnotations: true })).toEqual({
        kind: 'ask-connect',
        because,
      });
    }
    // Absent hints are not read as the spec's defaults: an unannotated tool keeps today's rules.
    expect(decide(allowAll, { ...request, believeAnnotations: true })).toEqual({ kind: 'allow' });
  });

  it('ignores the annotations of a server that is not believed (unapproved, imported, ad hoc)', () => {
    expect(decide(state(), readOnly)).toEqual({ kind: 'ask-connect' });
    expect(decide(state({ connect: new Map([['fs', 'confirm-each']]) }), readOnly)).toEqual({
      kind: 'ask-call',
    });
    expect(decide(allowAll, destructive)).toEqual({ kind: 'allow' });
    expect(decide(allowAll, openWorld)).toEqual({ kind: 'allow' });
  });

  it('leaves yolo and sandboxed as they are, and asks again when a read-only tool changed', () => {
    expect(decide(state({ level: 'yolo' }), { ...destructive, believeAnnotations: true })).toEqual({
      kind: 'allow',
    });
    expect(decide(state({ level: 'sandboxed' }), { ...readOnly, believeAnnotations: true })).toMatchObject({
      kind: 'deny',
    });
    const approved = new Map([
      [toolKey('fs', 'read'), { fingerprint: readOnly.fingerprint, tool: readOnly.tool }],
    ]);
    const changed = annotated({ readOnlyHint: true, openWorldHint: false, idempotentHint: true });
    expect(changed.fingerprint).not.toBe(readOnly.fingerprint);
    expect(decide(state({ approved }), { ...changed, believeAnnotations: true })).toMatchObject({
      kind: 'ask-changed',
    });
  });
});

describe('profiles (issue 25, item 3)', () => {
  const origin = { layer: 'global', file: '/home/me/.mcpx/mcp.json' } as const;

  it('decide refuses a tool outside the profile by its name, before the level or a list is looked at', () => {
    const state: PermissionState = { level: 'yolo', connect: new Map(), approved: new Map() };
    const tool: Tool = { name: 'create_issue', inputSchema: { type: 'object' } };
    const ruled = decide(state, { server: 'gh', tool, fingerprint: 'x', outOfProfile: 'review' });
    expect(ruled).toMatchObject({
      kind: 'deny',
      reason: "'create_issue' of 'gh' is not in profile 'review'",
    });
  });

  it('a tool is in a profile only when every layer lets it through (a repository can only narrow)', () => {
    const own = { servers: ['gh', 'fs'], tools: ['gh.get_*', 'fs.*'], excludeTools: ['fs.write*'], origin };
    const scope = profileScope({ name: 'p', layers: [own] });
    expect(scope('gh', 'get_issue')).toBe(true);
    expect(scope('gh', 'create_issue')).toBe(false);
    expect(scope('fs', 'write_file')).toBe(false);
    expect(scope('other')).toBe(false);
    const wider = {
      servers: ['gh', 'fs', 'other'],
      tools: ['*'],
      origin: { ...origin, layer: 'project' } as const,
    };
    const narrowed = profileScope({ name: 'p', layers: [own, wider] });
    expect(narrowed('gh', 'create_issue')).toBe(false);
    expect(narrowed('other', 'x')).toBe(false);
    expect(narrowed('fs', 'read_file')).toBe(true);
  });
});
