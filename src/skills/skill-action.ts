import type { Tool } from '@modelcontextprotocol/client';
import type { ListedSkill } from './types.js';

/** How the permission guard names loading a skill: `skill:<name>` (no MCP tool name has a colon). */
export const SKILL_ACTION_PREFIX = 'skill:';

/**
 * Offering a skill to a model, as the permission guard sees it: a definition named
 * `skill:<name>` whose description carries the skill's description and its manifest's
 * fingerprint. The guard approves definitions by their fingerprint, so a server whose skill's
 * manifest changes (a file, a digest, the frontmatter) is asked about again, as for a changed
 * tool. `allow_tools` / `deny_tools` globs match the name (`deny_tools: ["skill:*"]`).
 */
export function skillAction(skill: ListedSkill): Tool {
  return {
    name: `${SKILL_ACTION_PREFIX}${skill.name}`,
    description: `Skill: ${skill.description} [manifest sha256 ${skill.fingerprint}]`,
    inputSchema: { type: 'object' },
  };
}
