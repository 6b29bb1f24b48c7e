// The library's cold call: what a program using mcpx does to call one tool on one stdio
// server — load the config, connect through the registry, call, close — as one process.
// `node library-call.mjs CONFIG SERVER TOOL MESSAGE` prints the text and exits.
import { homedir } from 'node:os';
import { dirname } from 'node:path';
import { defaultConnector, loadConfig, resolveMcpxHome, ServerRegistry } from 'mcpx/low-level';

const [configFile, server, tool, message] = process.argv.slice(2);
const config = await loadConfig({
  cwd: dirname(configFile),
  env: process.env,
  home: resolveMcpxHome(process.env, homedir()),
  configFile,
});
const registry = new ServerRegistry(config.servers, {
  connector: defaultConnector({ hostEnv: process.env }),
});
try {
  const result = await registry.callTool(server, tool, { message });
  process.stdout.write(`${result.content[0].text}\n`);
} finally {
  await registry.close();
}
