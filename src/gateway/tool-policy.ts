import type { Tool } from '@modelcontextprotocol/server';
import type { ServerConfig } from '../config/index.js';
import type { PermissionLevel } from '../permissions/index.js';
import { decide, type PermissionState } from '../permissions/policy.js';
import { toolFingerprint } from '../permissions/tool-fingerprint.js';

export interface GatewayPolicyOptions {
  /** The permission level in force (the config's `permission`, or `--permission`). */
  readonly level: PermissionLevel;
  /** Servers whose every tool the person running the gateway allowed (`--allow a,b`). */
  readonly allowServers?: readonly string[];
  /** Globs on `<server>.<tool>` or `<tool>`: such tools are neither listed nor callable (`--exclude-tools`). */
  readonly excludeTools?: readonly string[];
}

/** Why a call was refused, with how to allow it; undefined when it may go ahead. */
export type Refusal = string | undefined;

/**
 * The gateway's side of the permission policy. There is nobody to ask, so a
 * call `decide()` would put to a person is refused, saying how to allow it.
 */
export function createGatewayPolicy(options: GatewayPolicyOptions) {
  const excluded = (options.excludeTools ?? []).map(globToRegExp);
  const state: PermissionState = {
    level: options.level,
    connect: new Map((options.allowServers ?? []).map((s) => [s, 'allow-all' as const])),
    approved: new Map(),
  };
  // A route's tool object lives as long as the host's catalogue, and hashing its schemas on
  // every call was a measurable part of a gateway call (profiled: ~2.5% of the serve process).
  const fingerprints = new WeakMap<Tool, string>();
  const fingerprintOf = (tool: Tool): string => {
    let fingerprint = fingerprints.get(tool);
    if (fingerprint === undefined) {
      fingerprint = toolFingerprint(tool);
      fingerprints.set(tool, fingerprint);
    }
    return fingerprint;
  };
  return {
    /** Listed and callable at all (the global exclusions; the per-server lists are the registry's). */
    offers(server: string, tool: string): boolean {
      return !excluded.some((re) => re.test(tool) || re.test(`${server}.${tool}`));
    },
    check(server: ServerConfig, tool: Tool): Refusal {
      const verdict = decide(state, {
        server: server.name,
        tool,
        fingerprint: fingerprintOf(tool),
        ...(server.allowTools ? { allowTools: server.allowTools } : {}),
        ...(server.denyTools ? { denyTools: server.denyTools } : {}),
      });
      if (verdict.kind === 'allow') return undefined;
      if (verdict.kind === 'deny') return `mcpx refused '${tool.name}': ${verdict.reason} (${verdict.fix})`;
      return (
        `mcpx refused '${tool.name}' of '${server.name}': permission '${options.level}' asks a person before ` +
        `a server is used, and the gateway has nobody to ask. To allow it, restart the gateway with ` +
        `\`--allow ${server.name}\` (every tool of that server) or \`--permission yolo\`, or set ` +
        `"permission": "yolo" in your mcpx config.`
      );
    },
  };
}

export type GatewayPolicy = ReturnType<typeof createGatewayPolicy>;

/** `*` any run of characters, `?` one; everything else literal. */
function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.+()[\]{}|/]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}
