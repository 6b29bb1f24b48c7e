import type { ServerConfig } from '../types.js';

/**
 * Why a server's own entry switches `tool` off: it is in the entry's deny list
 * (`disabled_tools`), or the entry has an allow list (`allowed_tools`) without it.
 * Undefined when the entry lets it through. Such a tool is not there for anyone:
 * not listed, not offered to an agent or a gateway client, not callable.
 */
export function toolSwitchedOff(
  config: Pick<ServerConfig, 'allowTools' | 'denyTools'> | undefined,
  tool: string,
): 'denied' | 'not-allowed' | undefined {
  if (config?.denyTools?.includes(tool)) return 'denied';
  if (config?.allowTools && !config.allowTools.includes(tool)) return 'not-allowed';
  return undefined;
}
