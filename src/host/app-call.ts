import type { Tool } from '@modelcontextprotocol/client';
import { isVisibleToApps } from '../client/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';

/**
 * The definition of the tool an MCP App asks to call, when the App may call it: one its own
 * server lists now and that Apps may see (`_meta.ui.visibility`; the Apps extension, SEP-1865:
 * "app" means callable by the app from this server only). Otherwise throws what the App is
 * answered: `UNKNOWN_TOOL`, or `PERMISSION_DENIED` for a tool for the model alone.
 */
export function toolForApp(server: string, name: string, tools: readonly Tool[]): Tool {
  const tool = tools.find((t) => t.name === name);
  if (!tool)
    throw new McpxError(ErrorCode.UnknownTool, `'${server}' has no tool '${name}'`, { server, tool: name });
  if (!isVisibleToApps(tool))
    throw new McpxError(
      ErrorCode.PermissionDenied,
      `'${name}' of '${server}' is for the model alone: an App may not call it`,
      {
        server,
        tool: name,
        fixes: ['an App may call only the tools its server marks for apps (visibility "app")'],
      },
    );
  return tool;
}
