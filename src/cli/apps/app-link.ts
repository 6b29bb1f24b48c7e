import { spawn } from 'node:child_process';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import type { HeldCall } from '../../console/index.js';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { appResourceUri } from '../../host/index.js';
import { forTerminal, type SafeText } from '../../text/index.js';
import type { CliContext } from '../context/context.js';
import type { GlobalOptions } from '../context/global-options.js';
import { appNotice } from '../output/app-notice.js';
import { openBrowser } from '../terminal/open-browser.js';

/** How long a link's console may take to print its link. */
const START_MS = 20_000;

/** The link a held call's console prints (`mcpx console --for-call`). */
const LINK = /http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+&call=\d+/;

/**
 * After a call of a tool with an MCP App, for a person (stderr a terminal) or with `--open`: a
 * console started for this call (`mcpx console --for-call`, detached, holding the call's input
 * and the result the terminal showed — no second call), and one line with its link, which opens
 * the App with that input and result; `open` opens it in the browser too. The console ends once
 * its page was closed, or when nobody opened it in 10 minutes. For a script without `--open`,
 * or when the console cannot start, the line names `mcpx console --open-app` instead.
 */
export async function tellAppLink(
  session: Pick<CliContext, 'io' | 'options' | 'notice'>,
  server: string,
  tool: Tool,
  call: { readonly args: Record<string, unknown>; readonly result: CallToolResult; readonly open?: boolean },
): Promise<void> {
  const uri = appResourceUri(tool);
  if (uri === undefined) return;
  if (!session.io.stderrIsTTY && !call.open) {
    const notice = appNotice(server, tool);
    if (notice) session.notice(notice);
    return;
  }
  let link: string;
  try {
    link = await startLinkConsole(session, { server, tool: tool.name, args: call.args, result: call.result });
  } catch (error) {
    session.notice(
      forTerminal(
        `${server}.${tool.name} has an MCP App (${uri}), but no link to it could be made (${error instanceof Error ? error.message : String(error)}): see it with mcpx console --open-app ${server}.${tool.name}`,
      ),
    );
    return;
  }
  session.notice(appLinkLine(server, tool.name, uri, link));
  if (call.open)
    await openBrowser(link).catch((error: unknown) =>
      session.notice(forTerminal(`could not open a browser (${String(error)}); open the link above`)),
    );
}

/** The line naming the App and the link that opens it with the call's input and result. */
export function appLinkLine(server: string, tool: string, uri: string, link: string): SafeText {
  return forTerminal(`${server}.${tool} has an MCP App (${uri}): open ${link}`);
}

/** `mcpx console --for-call` over this command's config, detached; resolves to its link. */
function startLinkConsole(session: Pick<CliContext, 'io' | 'options'>, call: HeldCall): Promise<string> {
  const { io, options } = session;
  const args = [
    ...process.execArgv.filter((a) => !a.startsWith('--inspect')),
    process.argv[1] ?? '',
    ...globalArgs(options),
    'console',
    '--for-call',
  ];
  return new Promise<string>((resolve, reject) => {
    // Its own process group, so that the terminal's Ctrl-C after this command does not end it:
    // it outlives the command on purpose, for the page, and ends by itself (see tellAppLink).
    const child = spawn(process.execPath, args, {
      cwd: io.cwd,
      env: { ...io.env },
      detached: true,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let out = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      child.stdout?.destroy();
      if (child.exitCode === null) child.kill('SIGTERM');
      reject(new McpxError(ErrorCode.Internal, why));
    };
    const timer = setTimeout(() => fail('the console did not start in time'), START_MS);
    child.once('error', (error) => fail(error.message));
    child.once('exit', (code) => fail(`the console ended at once (exit code ${code})`));
    child.stdin?.on('error', () => {});
    child.stdin?.end(JSON.stringify(call));
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const found = LINK.exec(out);
      if (!found) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.stdout?.destroy();
      child.unref();
      resolve(found[0]);
    });
  });
}

/** The global flags that choose the servers, handed on to the link's console. */
function globalArgs(options: GlobalOptions): string[] {
  const args: string[] = [];
  const pair = (flag: string, value: string | undefined) => {
    if (value !== undefined) args.push(flag, value);
  };
  pair('--config', options.config);
  pair('--stdio', options.stdio);
  pair('--url', options.url);
  if (options.sse) args.push('--sse');
  for (const value of options.env ?? []) args.push('--env', value);
  pair('--cwd', options.cwd);
  pair('--name', options.name);
  pair('--timeout', options.timeout);
  if (options.auditLog === false) args.push('--no-audit-log');
  else pair('--audit-log', options.auditLog);
  return args;
}
