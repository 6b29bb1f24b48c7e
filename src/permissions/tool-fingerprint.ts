import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';
import { canonicalJson } from '../config/index.js';

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

/**
 * `toolFingerprint`, remembered per definition object. A definition a server
 * sends arrives as a new object (every listing is parsed anew), so one object
 * is one definition; hashing its schemas on every call was a measurable part of
 * a gateway call (profiled: ~2.5% of the serve process). One per guard.
 */
export function fingerprintCache(): (tool: Tool) => string {
  const fingerprints = new WeakMap<Tool, string>();
  return (tool) => {
    let fingerprint = fingerprints.get(tool);
    if (fingerprint === undefined) {
      fingerprint = toolFingerprint(tool);
      fingerprints.set(tool, fingerprint);
    }
    return fingerprint;
  };
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
