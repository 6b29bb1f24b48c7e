import type { ServerConfig } from '../types.js';
import { canonicalEntry } from './entry.js';
import type { McpxEntry } from './types.js';

/**
 * A loaded server as mcpx's own config would write it, keeping `${VAR}`
 * references as written (so exporting never puts a secret in clear): the
 * fields that run or reach something come from what the file said, the
 * harmless ones (timeouts, tool filters) from the loaded values.
 */
export function entryFromServer(server: ServerConfig): McpxEntry {
  const written = server.asWritten ?? {};
  const has = (key: string) => Object.hasOwn(written, key);
  let command = has('command') ? written.command : server.command;
  const args: unknown[] = [];
  const whole = Array.isArray(command);
  if (Array.isArray(command)) {
    args.push(...command.slice(1));
    command = command[0];
  }
  // server.args already holds the tail of a command written as an array.
  if (has('args')) args.push(...(written.args as unknown[]));
  else if (!whole) args.push(...server.args);
  const seconds = (ms: number | undefined) => (ms === undefined ? undefined : ms / 1000);
  return canonicalEntry({
    command: server.transport === 'stdio' ? command : undefined,
    args: server.transport === 'stdio' ? args : undefined,
    env: has('env') ? written.env : server.env,
    env_passthrough: server.envPassthrough,
    cwd: has('cwd') ? written.cwd : server.cwd,
    url: server.transport === 'stdio' ? undefined : has('url') ? written.url : server.url,
    type: server.transport === 'sse' ? 'sse' : undefined,
    headers: has('headers') ? written.headers : server.headers,
    enabled: server.enabled,
    connect_timeout: seconds(server.connectTimeoutMs),
    request_timeout: seconds(server.requestTimeoutMs),
    allowed_tools: server.allowTools,
    disabled_tools: server.denyTools,
  });
}
