import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';
import { canonicalJson } from '../config/fingerprint.js';

/** What of a tool definition an approval covers: everything that tells the model what the tool does. */
function approvedPart(tool: Tool): Record<string, unknown> {
  return {
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema ?? {},
    outputSchema: tool.outputSchema ?? null,
    annotations: tool.annotations ?? null,
  };
}

/** A stable hash of a tool definition, recorded when it is approved. */
export function toolFingerprint(tool: Tool): string {
  return createHash('sha256')
    .update(canonicalJson(approvedPart(tool)))
    .digest('hex');
}

/** What changed between the definition that was approved and the one offered now, in words. */
export function describeToolChange(before: Tool, after: Tool): string[] {
  const changes: string[] = [];
  if ((before.description ?? '') !== (after.description ?? '')) {
    changes.push(`description changed: "${before.description ?? ''}" → "${after.description ?? ''}"`);
  }
  const params = (t: Tool) => (t.inputSchema?.properties ?? {}) as Record<string, unknown>;
  const [was, now] = [params(before), params(after)];
  for (const name of Object.keys(now)) if (!(name in was)) changes.push(`parameter added: ${name}`);
  for (const name of Object.keys(was)) if (!(name in now)) changes.push(`parameter removed: ${name}`);
  for (const name of Object.keys(now)) {
    if (name in was && canonicalJson(was[name]) !== canonicalJson(now[name]))
      changes.push(`parameter changed: ${name}`);
  }
  if (
    canonicalJson(before.inputSchema?.required ?? []) !== canonicalJson(after.inputSchema?.required ?? [])
  ) {
    changes.push('required parameters changed');
  }
  if (canonicalJson(before.outputSchema ?? null) !== canonicalJson(after.outputSchema ?? null))
    changes.push('output schema changed');
  if (canonicalJson(before.annotations ?? null) !== canonicalJson(after.annotations ?? null))
    changes.push('annotations changed');
  return changes.length ? changes : ['the definition changed'];
}
