/**
 * A host limited to a profile (`HostOptions.profile`): which profile, which of its servers,
 * and the level it runs at. The tools it lets through are the permission guard's to decide.
 */
import type { LoadedConfig, PermissionName, ProfileConfig, ServerConfig } from '../config/index.js';
import { findProfile } from '../config/loading.js';
import { ErrorCode, McpxError } from '../errors/index.js';

const RANK: Readonly<Record<PermissionName, number>> = { sandboxed: 0, trusted: 1, yolo: 2 };

/** The profile called `name`, or why it cannot be used. */
export function profileForHost(
  config: LoadedConfig,
  name: string,
  adhoc: ServerConfig | undefined,
): ProfileConfig {
  if (adhoc)
    throw new McpxError(
      ErrorCode.Usage,
      `--profile ${name} limits the config's servers; --${adhoc.transport === 'stdio' ? 'stdio' : 'url'} names one server of its own`,
      { fixes: ['leave out one of --profile and the ad-hoc server'] },
    );
  return findProfile(config, name);
}

/** Whether every layer of the profile includes the server (a layer without `servers` includes every one). */
export function hasServer(profile: ProfileConfig, server: string): boolean {
  return profile.layers.every((layer) => !layer.servers || layer.servers.includes(server));
}

/** Why `name`, a configured server, cannot be used under the profile; undefined when it can (or is not configured). */
export function outsideProfile(
  profile: ProfileConfig,
  name: string,
  config: LoadedConfig,
): McpxError | undefined {
  if (hasServer(profile, name)) return undefined;
  const configured = [...config.servers, ...config.unapproved].some((s) => s.name === name);
  if (!configured) return undefined;
  return new McpxError(ErrorCode.PermissionDenied, `server '${name}' is not in profile '${profile.name}'`, {
    server: name,
    fixes: [`add '${name}' to the servers of profile '${profile.name}', or run without --profile`],
  });
}

/**
 * The level under the profile: the lowest of `granted` and each layer's `permission`.
 * A profile only narrows: one asking for more than `granted` (the person's `--permission`,
 * else the config's level in force) is refused, naming the file, rather than quietly lowered,
 * since the person asked for a level they would not get.
 */
export function narrowedLevel(
  profile: ProfileConfig,
  granted: PermissionName,
  flag: boolean,
): PermissionName {
  let level = granted;
  for (const layer of profile.layers) {
    const asked = layer.permission;
    if (asked === undefined) continue;
    if (RANK[asked] > RANK[granted]) {
      const { file, line } = layer.origin;
      const repository = layer.origin.layer === 'project' || layer.origin.layer === 'ancestor';
      const where = `${file ?? layer.origin.layer}${line ? `:${line}` : ''}`;
      throw new McpxError(
        ErrorCode.ConfigInvalid,
        `${where}: profile '${profile.name}' asks for permission '${asked}', above '${granted}' ${flag ? 'given by --permission' : 'that your config grants'}; ${repository ? "a repository's profile" : 'a profile'} may only lower the level`,
        {
          origin: layer.origin,
          field: `profiles.${profile.name}.permission`,
          fixes: [
            `set the profile's permission to '${granted}' or lower`,
            repository
              ? "remove the permission from the repository's profile"
              : `or raise the level itself: "permission": "${asked}" in your config, or --permission ${asked}`,
          ],
        },
      );
    }
    if (RANK[asked] < RANK[level]) level = asked;
  }
  return level;
}
