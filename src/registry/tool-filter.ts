import type { Tool } from '@modelcontextprotocol/client';
import { type ServerConfig, toolSwitchedOff } from '../config/loading.js';

/** The config's allow list (if any) and deny list applied to a tool list (see `toolSwitchedOff`). */
export function filterTools(config: ServerConfig, tools: readonly Tool[]): Tool[] {
  return tools.filter((t) => toolSwitchedOff(config, t.name) === undefined);
}
