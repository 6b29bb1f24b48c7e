/**
 * The servers' skills for an agent `mcpx exec` starts. Claude Code (2.1) has no MCP skills: it
 * reads skills only from its own folders and plugins, never from a server. So when a handed-over
 * server lists skills, the agent gets one more entry, a skills-only `mcpx serve` over those
 * servers, whose `mcpx__load_skill` carries the catalogue and loads a skill on demand, verified
 * at mcpx on every read (`gateway/skill-tools.ts`). Nothing is written where the agent reads skills
 * from disk: a copy there would be read ahead of any request, and no longer checked once copied.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { CLIENT_APPS } from '../../config/client-apps/index.js';
import type { ServerConfig } from '../../config/index.js';
import type { CliContext } from '../context/context.js';
import { type GatewayEntryContext, gatewayEntry } from './gateway-entry.js';

/** How long exec waits for the servers to list their skills before the agent starts without the rest. */
export const SKILLS_PROBE_MS = 5_000;

/** The skills entry an agent is handed, under `name`, serving the skills of `servers`. */
export interface SkillsEntry {
  readonly name: string;
  readonly servers: readonly string[];
  readonly entry: unknown;
}

/**
 * The entry, when some of `chosen` list skills now: asked of each (`skills/list`, no file read)
 * for up to {@link SKILLS_PROBE_MS}, each stopped again before the agent starts (the agent starts
 * its own). A server that fails or does not answer in time counts as having none. The entry is
 * named `mcpx` (`mcpx-skills` if a server has that name), and it allows its servers' skills
 * (`--allow`): the agent's own permission prompt for the load is the person's consent, as it is
 * for the servers' tools the agent is handed directly.
 */
export async function skillsEntry(
  session: CliContext,
  chosen: readonly ServerConfig[],
): Promise<SkillsEntry | undefined> {
  if (chosen.length === 0) return undefined;
  const skills = session.host.skills();
  const registry = await session.host.registry();
  const probes = chosen.map(async (server) => {
    const { skills: listed } = await skills.list({ servers: [server.name] }).catch(() => ({ skills: [] }));
    // Stopped as soon as it answered: the agent starts the server itself.
    await registry.disconnect(server.name).catch(() => undefined);
    return listed.length > 0 ? server.name : undefined;
  });
  const late = delay(SKILLS_PROBE_MS, undefined, { ref: false }).then(() => undefined);
  const answers = await Promise.all(probes.map((probe) => Promise.race([probe, late])));
  // One still starting is stopped once its start ends (the host's close waits for it at the latest).
  for (const [i, server] of chosen.entries())
    if (answers[i] === undefined) void registry.disconnect(server.name).catch(() => undefined);
  const servers = answers.filter((name): name is string => name !== undefined);
  if (servers.length === 0) return undefined;
  const names = new Set(chosen.map((s) => s.name));
  const name = names.has('mcpx') ? 'mcpx-skills' : 'mcpx';
  if (names.has(name)) return undefined;
  const list = servers.join(',');
  const entry = await claudeServeEntry(session, {
    serveFlags: ['--skills-only', '--servers', list, '--allow', list],
  });
  return { name, servers, entry };
}

/** An `mcpx serve` entry of this very mcpx over this run's config, in Claude Code's dialect. */
export async function claudeServeEntry(
  session: CliContext,
  serve: Pick<GatewayEntryContext, 'profile' | 'serveFlags'>,
): Promise<unknown> {
  const { io } = session;
  const entry = gatewayEntry(await session.host.config(), {
    configFile: session.options.config,
    cwd: io.cwd,
    env: io.env,
    execPath: process.execPath,
    script: process.argv[1] ?? '',
    ...serve,
  });
  return CLIENT_APPS['claude-code'].write(entry).value;
}
