import type { ProfileConfig } from '../config/index.js';
import { toolExclusions } from './tool-exclusions.js';

/**
 * Whether a profile lets `tool` of `server` through (or, without a tool, whether its
 * servers include `server`): every layer must, the user's definition and each
 * repository file's narrowing alike. Globs as `--exclude-tools` reads them.
 *
 * @example
 * const inProfile = profileScope({ name: 'review', layers: [{ servers: ['gh'], tools: ['gh.get_*'], origin }] });
 * inProfile('gh', 'get_issue'); // true
 * inProfile('gh', 'create_issue'); // false
 */
export function profileScope(profile: ProfileConfig): (server: string, tool?: string) => boolean {
  const layers = profile.layers.map((layer) => ({
    servers: layer.servers,
    tools: layer.tools ? toolExclusions(layer.tools) : undefined,
    excluded: toolExclusions(layer.excludeTools ?? []),
  }));
  return (server, tool) =>
    layers.every(
      (l) =>
        (!l.servers || l.servers.includes(server)) &&
        (tool === undefined || ((!l.tools || l.tools(server, tool)) && !l.excluded(server, tool))),
    );
}
