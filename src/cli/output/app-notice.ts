import type { Tool } from '@modelcontextprotocol/client';
import { appResourceUri } from '../../host/index.js';
import { forTerminal, type SafeText } from '../../text/index.js';

/**
 * The line telling a person that a tool has an MCP App and how to see it: the same words after
 * `mcpx call`, a call in the shell and a chat model's call. Undefined for a tool without one.
 */
export function appNotice(server: string, tool: Tool): SafeText | undefined {
  const uri = appResourceUri(tool);
  if (uri === undefined) return undefined;
  const target = `${server}.${tool.name}`;
  return forTerminal(`${target} has an MCP App (${uri}): see it with mcpx console --open-app ${target}`);
}
