import { suggest as suggestName } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import type { PermissionGuard, ToolCallGuard } from '../permissions/index.js';
import type { ToolRouter } from './router.js';

/**
 * Why no tool answers to `name`: refused as out of the session's profile when the policy hides
 * it for that (see below), else unknown, with the nearest name offered.
 */
export function unknownTool(
  name: string,
  router: ToolRouter,
  guard: ToolCallGuard,
  mode: 'all' | 'search',
): McpxError {
  const refused = outOfProfile(name, router, guard);
  if (refused) return refused;
  const guess = suggestName(
    name,
    router.tools.map((t) => t.name),
  );
  return new McpxError(
    ErrorCode.UnknownTool,
    `no tool named '${name}'${guess ? ` — did you mean '${guess}'?` : ''}`,
    {
      tool: name,
      fixes: [
        mode === 'search'
          ? 'find the exact name with search_tools first'
          : 'use one of the tool names you were given',
      ],
    },
  );
}

/**
 * A tool the session's profile leaves out is refused as such (the guard's words, "not in
 * profile P"), not as unknown: the model or the person then knows why. Other tools the
 * policy hides (exclusions, a server's own lists) stay unknown, as they always were.
 */
function outOfProfile(name: string, router: ToolRouter, guard: ToolCallGuard): McpxError | undefined {
  const hidden = router.hidden(name);
  const policy = guard as Partial<PermissionGuard>;
  if (!hidden || policy.profile === undefined || !policy.outOfProfile?.(hidden.source.id, hidden.tool.name))
    return undefined;
  const ruled = policy.verdict?.({ server: hidden.source.id, tool: hidden.tool });
  if (ruled?.kind !== 'deny') return undefined;
  return new McpxError(
    ErrorCode.PermissionDenied,
    `calling '${hidden.source.id}' tool '${hidden.tool.name}' was denied: ${ruled.reason}`,
    { server: hidden.source.id, tool: hidden.tool.name, fixes: [ruled.fix] },
  );
}
