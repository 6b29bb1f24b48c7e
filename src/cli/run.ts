import { Command, CommanderError, Option } from 'commander';
import { ErrorCode, McpxError, toMcpxError } from '../errors/index.js';
import { forTerminal, say } from '../text/index.js';
import { VERSION } from '../version.js';
import type { CliDoor } from './context/context.js';
import type { GlobalOptions } from './context/global-options.js';
import { ExitCode, exitCodeFor } from './io/exit-codes.js';
import type { CliIo } from './io/io.js';
import { JsonStderr } from './io/json-stderr.js';
import { writeError } from './target/report.js';

type Action = (door: CliDoor) => Promise<number>;

/**
 * The whole CLI as a function: parse `argv`, run one command, return the exit
 * code. Command modules load lazily so `mcpx --version` loads almost nothing.
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  // --json: whatever goes to stderr is gathered into one JSON object, written at the end.
  const flag = argv.indexOf('--');
  const jsonStderr = (flag === -1 ? argv : argv.slice(0, flag)).includes('--json')
    ? new JsonStderr(io.stderr)
    : undefined;
  try {
    return await runCommand(argv, io, jsonStderr);
  } finally {
    jsonStderr?.flush();
  }
}

async function runCommand(argv: readonly string[], raw: CliIo, jsonStderr: JsonStderr | undefined) {
  let action: Action | undefined;
  let commandName = '';
  const program = buildProgram((a) => {
    action = a;
  });
  program.hook('preAction', (_, actionCommand) => {
    const names: string[] = [];
    for (let c: Command | null = actionCommand; c && c !== program; c = c.parent) names.unshift(c.name());
    commandName = names.join(' ');
  });
  // Subcommands copy these settings only when created, so each one is given them here.
  const output = {
    // Help and usage errors quote the command line, which a script may have built from anything.
    writeOut: (s: string) => raw.stdout.write(forTerminal(s)),
    writeErr: (s: string) => (jsonStderr?.stream ?? raw.stderr).write(forTerminal(s)),
  };
  for (const command of everyCommand(program)) command.configureOutput(output).exitOverride();
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version "fail" with exit code 0.
      if (error.exitCode === 0) return ExitCode.Ok;
      const said = jsonStderr?.takeText().replace(/^error: /, '');
      jsonStderr?.error(
        new McpxError(ErrorCode.Usage, said || error.message, { fixes: ['run mcpx --help'] }),
      );
      return ExitCode.Usage;
    }
    throw error;
  }
  if (!action) return ExitCode.Ok;
  const options = program.opts<GlobalOptions>();
  const json = options.json === true ? jsonStderr : undefined;
  const early = json ? '' : (jsonStderr?.takeText() ?? ''); // `--json` was an argument's value
  if (early) raw.stderr.write(say`${early}\n`);
  const io: CliIo = json ? withJsonStderr(raw, json) : raw;
  // The SDK and this module load only when tracing may be on: a flag, or OpenTelemetry's variables.
  const maybeTraced = options.trace === true || Object.keys(io.env).some((key) => key.startsWith('OTEL_'));
  const tracing =
    maybeTraced &&
    (await (
      await import('./tracing.js')
    ).startCliTracing(
      {
        trace: options.trace === true,
        traceContent: options.traceContent === true,
        memory: options.trace === true && commandName === 'doctor',
      },
      io,
    ));
  // Loaded only when a command runs: `--version` and `--help` need none of it.
  const { commandDoor } = await import('./context/context.js');
  const door = commandDoor(io, options);
  const selected = action;
  try {
    return await (tracing ? tracing.run(commandName, () => selected(door)) : selected(door));
  } catch (error) {
    const failure =
      io.signal.aborted && !(error instanceof McpxError && error.code !== ErrorCode.Cancelled)
        ? new McpxError(ErrorCode.Cancelled, 'cancelled', { cause: error })
        : toMcpxError(error);
    writeError(door, failure);
    return exitCodeFor(failure.code);
  } finally {
    await door.close();
    if (tracing) await tracing.end();
  }
}

function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap((sub) => everyCommand(sub))];
}

/** `raw` with stderr gathered into `json`; getters (a lazily opened stdin) stay getters. */
function withJsonStderr(raw: CliIo, json: JsonStderr): CliIo {
  return Object.defineProperties(
    {},
    {
      ...Object.getOwnPropertyDescriptors(raw),
      stderr: { value: json.stream, enumerable: true },
      jsonStderr: { value: json, enumerable: true },
    },
  ) as CliIo;
}

// Long because it is commander's declaration of every command, one after another: a table in code,
// with no logic to split.
function buildProgram(select: (action: Action) => void): Command {
  const program = new Command('mcpx')
    .description('One config file, every MCP server: list and call tools, read resources, render prompts.')
    .version(VERSION, '-V, --version')
    .option('-c, --config <file>', 'use this config file instead of discovering global and project files')
    .option('--json', 'machine output on stdout; errors as one JSON object on stderr')
    .option('-v, --verbose', 'full error reports, server stderr and log messages')
    .option(
      '-t, --timeout <seconds>',
      'seconds allowed to connect and for each request (overrides connect_timeout and request_timeout)',
    )
    .option(
      '--stdio <command>',
      'an ad-hoc stdio server instead of the config (the tool may be named without a prefix)',
    )
    .option(
      '--url <url>',
      'an ad-hoc remote server (Streamable HTTP, falling back to HTTP+SSE) instead of the config',
    )
    .option('--sse', 'with --url: the server speaks the legacy HTTP+SSE transport only')
    .option(
      '--env <K=V>',
      'with --stdio: set a variable for the server (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--cwd <dir>', 'with --stdio: the directory the server runs in (default: the current one)')
    .option(
      '--audit-log <file>',
      'the audit log of tool calls goes to this file (default ~/.mcpx/logs/audit.jsonl)',
    )
    .option('--no-audit-log', 'keep no audit log of tool calls for this command')
    .option(
      '--name <name>',
      "with --stdio or --url: the server's name (default: derived from the command or host)",
    )
    .option(
      '--trace',
      'OpenTelemetry traces of this run, sent over OTLP/HTTP to $OTEL_EXPORTER_OTLP_ENDPOINT (doctor: drawn in the terminal)',
    )
    .option(
      '--trace-content',
      'with tracing on: record tool arguments and results on the spans, secrets masked',
    )
    .showSuggestionAfterError(true)
    .helpCommand(true);

  program
    .command('chat')
    .description("an agent with every server's tools, on an OpenAI-compatible model (lines from stdin)")
    .option('--model <name>', 'the model (default: $MCPX_MODEL, else gpt-4o-mini)')
    .option(
      '--base-url <url>',
      'the Chat Completions endpoint base (default: $OPENAI_BASE_URL, else OpenAI); the key is $OPENAI_API_KEY',
    )
    .option(
      '--permission <level>',
      'yolo (never ask), trusted (ask on first use of a server; default), sandboxed (no MCP access)',
    )
    .option('--max-steps <n>', 'model calls per turn before giving up (default 10)')
    .option('--once <question>', 'ask one question, print the final answer and exit (for scripts)')
    .option(
      '--profile <name>',
      'only the servers and tools of this profile of the config (default: $MCPX_PROFILE)',
    )
    .option(
      '--resources',
      "also offer the model list_resources and read_resource (the servers' resources; each read is decided like a tool call)",
    )
    .action(
      (opts: {
        model?: string;
        baseUrl?: string;
        permission?: string;
        maxSteps?: string;
        once?: string;
        resources?: boolean;
        profile?: string;
      }) => select(async (door) => (await import('./commands/chat.js')).runChat(door, opts)),
    );

  program
    .command('shell')
    .description('interactive shell: /mcp commands, @server tool calls, completion and history')
    .option(
      '--permission <level>',
      "what /mcp connect --allow-all may allow a model: yolo, trusted or sandboxed; default: the config's",
    )
    .option(
      '--profile <name>',
      'only the servers and tools of this profile of the config (default: $MCPX_PROFILE)',
    )
    .action((opts: { permission?: string; profile?: string }) =>
      select(async (door) => (await import('./commands/shell.js')).runShellCommand(door, opts)),
    );

  const auth = program
    .command('auth')
    .description(
      'sign in to a remote server with OAuth (opens the browser; a code to enter with --device or on a machine with no display); `auth status`, `auth logout`',
    )
    .argument('<server>')
    .option('--no-browser', 'print the URL instead, and accept the redirected URL pasted on stdin')
    .option(
      '--device',
      'sign in with a code approved in a browser on any device (OAuth device flow; the default with no display)',
    )
    .action((server: string, opts: { browser?: boolean; device?: boolean }) =>
      select(async (door) => (await import('./commands/auth.js')).runAuth(door.open(), server, opts)),
    );
  auth
    .command('status')
    .description('each remote server: signed in or not, expiry, scopes, grant, where stored (never a token)')
    .argument('[server]')
    .action((server: string | undefined) =>
      select(async (door) => (await import('./commands/auth-status.js')).runAuthStatus(door.open(), server)),
    );
  auth
    .command('logout')
    .description("forget a remote server's OAuth tokens (the same as `mcpx logout`)")
    .argument('<server>')
    .action((server: string) =>
      select(async (door) => (await import('./commands/auth.js')).runLogout(door.open(), server)),
    );

  program
    .command('logout')
    .description("forget a remote server's OAuth tokens")
    .argument('<server>')
    .action((server: string) =>
      select(async (door) => (await import('./commands/auth.js')).runLogout(door.open(), server)),
    );

  program
    .command('list')
    .description('servers with their origin, state, protocol and tool count')
    .action(() => select(async (door) => (await import('./commands/list.js')).runList(door.open())));

  program
    .command('tools')
    .description('tools with descriptions and parameters; server.tool: one tool in full')
    .argument('[server | server.tool]')
    .option('--schema', 'print each input schema in full')
    .action((server: string | undefined, opts: { schema?: boolean }) =>
      select(async (door) =>
        (await import('./commands/tools.js')).runTools(door.open(), server, opts.schema === true),
      ),
    );

  program
    .command('call')
    .description('call a tool: mcpx call <server>.<tool> key=value ... | \'{"json": "object"}\'')
    .argument('<server.tool>')
    .argument('[arguments...]')
    .option(
      '--save <dir>',
      'write images, audio and binary resources of the result to files in this directory',
    )
    .option(
      '--open',
      "a tool with an MCP App: open the App, with this call's input and result, in the browser",
    )
    .action((target: string, args: string[], opts: { save?: string; open?: boolean }) =>
      select(async (door) => (await import('./commands/call.js')).runCall(door, target, args, opts)),
    );

  program
    .command('generate')
    .description("typed TypeScript from servers' tools, called through the host; --check: catch drift")
    .argument('<server...>')
    .option('-o, --out <file|dir>', 'a .ts file (one server) or a directory of <server>.ts (default: stdout)')
    .option('--check', 'compare the files at --out with the servers; exit non-zero naming what changed')
    .option('--import-from <module>', 'the module the generated code imports mcpx from (default mcpx)')
    .option(
      '--layout <module|tree>',
      'tree: with --out DIR, a folder per server with a file per tool and an index',
    )
    .action((servers: string[], opts: import('./commands/generate.js').GenerateFlags) =>
      select(async (door) =>
        (await import('./commands/generate.js')).runGenerate(door.open(), servers, opts),
      ),
    );

  program
    .command('resources')
    .description('list resources')
    .argument('[server]')
    .action((server?: string) =>
      select(async (door) => (await import('./commands/resources.js')).runResources(door.open(), server)),
    );

  program
    .command('templates')
    .description('list resource templates')
    .argument('[server]')
    .action((server?: string) =>
      select(async (door) => (await import('./commands/resources.js')).runTemplates(door.open(), server)),
    );

  program
    .command('read')
    .description('read a resource')
    .argument('<server>')
    .argument('<uri>')
    .option('-w, --watch', 'read it again each time the server says it changed, until Ctrl-C')
    .option('--raw', "write the resource's bytes to stdout exactly (blobs decoded), for a file or a pipe")
    .action((server: string, uri: string, flags: { watch?: boolean; raw?: boolean }) =>
      select(async (door) =>
        (await import('./commands/read.js')).runRead(door, server, uri, {
          watch: flags.watch === true,
          raw: flags.raw === true,
        }),
      ),
    );

  program
    .command('prompts')
    .description('list prompts')
    .argument('[server]')
    .action((server?: string) =>
      select(async (door) => (await import('./commands/prompts.js')).runPrompts(door.open(), server)),
    );

  program
    .command('prompt')
    .description('render a prompt: mcpx prompt <server>.<name> key=value ...')
    .argument('<server.prompt>')
    .argument('[arguments...]')
    .action((target: string, args: string[]) =>
      select(async (door) => (await import('./commands/prompts.js')).runPrompt(door, target, args)),
    );

  program
    .command('skills')
    .description("list skills (SEP-2640) with their descriptions; no skill's file is read")
    .argument('[server]')
    .action((server?: string) =>
      select(async (door) => (await import('./commands/skills.js')).runSkills(door.open(), server)),
    );

  program
    .command('skill')
    .description(
      "show a skill's SKILL.md and files, or read one of its files: mcpx skill <server>.<skill> [file]",
    )
    .argument('<server.skill>')
    .argument('[file]')
    .action((target: string, file?: string) =>
      select(async (door) => (await import('./commands/skills.js')).runSkill(door, target, file)),
    );

  program
    .command('ping')
    .description('health and latency of one or every server')
    .argument('[server]')
    .action((server?: string) =>
      select(async (door) => (await import('./commands/ping.js')).runPing(door.open(), server)),
    );

  program
    .command('doctor')
    .description('check every configured server and explain what is wrong')
    .action(() => select(async (door) => (await import('./commands/doctor.js')).runDoctor(door.open())));

  program
    .command('retry')
    .description("list a server's tools again (after a failed listing)")
    .argument('<server>')
    .action((server: string) =>
      select(async (door) => (await import('./commands/retry.js')).runRetry(door.open(), server)),
    );

  program
    .command('exec')
    .description(
      "run an agent CLI with the servers: writes them to a private temporary file (Claude Code dialect), passes --mcp-config <file> --strict-mcp-config where the command takes them (before Claude Code's prompt; not to `claude mcp …`, which reads its own files), and removes the file when it ends",
    )
    .argument('<command...>', 'the command and its arguments, after --: mcpx exec -- claude')
    .option(
      '--servers <names>',
      'only these servers, separated by commas (default: every enabled, trusted one)',
    )
    .option('--no-strict', 'leave out --strict-mcp-config (the agent also keeps its own servers)')
    .option(
      '--config-flag <flag>',
      'the flag that names the file, for agents other than Claude Code (default --mcp-config)',
    )
    .option(
      '--profile <name>',
      'hand over one mcpx serve --profile <name> entry: only that profile of the config (default: $MCPX_PROFILE)',
    )
    .option(
      '--no-skills',
      'hand over no skills entry (by default, when a server lists skills, one more entry, mcpx serve --skills-only, offers them)',
    )
    .option('-q, --quiet', 'say nothing on stderr about which servers are handed over (nor with --json)')
    .action((command: string[], opts: import('./commands/exec.js').ExecFlags) =>
      select(async (door) => (await import('./commands/exec.js')).runExec(door, command, opts)),
    );

  // A repeatable option: every occurrence, in order.
  const repeat = (value: string, previous: string[] = []) => [...previous, value];
  program
    .command('serve')
    .description('serve every configured server as one MCP server (stdio, or Streamable HTTP with --http)')
    .option('--http', 'listen on Streamable HTTP (both protocol eras) instead of stdio')
    .option('--host <host>', 'with --http: the address to bind (default 127.0.0.1; others need --token)')
    .option('--port <port>', 'with --http: the port (default: one the system picks; printed on stderr)')
    .option('--token <secret>', 'with --http: the bearer token every client must send')
    .option('--token-file <file>', 'with --http: read the bearer token from this file')
    .option(
      '--state-key-file <file>',
      'with --http: the key (32+ random bytes, owner-only file) sealing input rounds; give every instance behind one load balancer the same file',
    )
    .option(
      '--state <url>',
      "with --http: share consent, SSE events, sessions, fan-out and limits with the fleet's other instances through Redis (redis://host:6379); needs --state-key-file",
    )
    .option(
      '--allowed-origin <host>',
      'with --http: also accept browser requests from this origin host (repeatable)',
      repeat,
    )
    .option('--allowed-host <host>', 'with --http: also accept this Host header name (repeatable)', repeat)
    .option('--server <name>', 're-serve this one server unchanged (no name prefixes): a transparent bridge')
    .option('--servers <a,b>', 'serve only these servers')
    .option(
      '--skills-only',
      "serve only the servers' skills (mcpx__load_skill, mcpx__read_skill_file): no tool, resource or prompt of theirs",
    )
    .option('--exclude-tools <glob>', 'hide tools matching server.tool or tool (repeatable)', repeat)
    .option(
      '--profile <name>',
      'only the servers and tools of this profile of the config (default: $MCPX_PROFILE)',
    )
    .option(
      '--permission <level>',
      "yolo, trusted (refuses calls that would ask a person) or sandboxed; default: the config's",
    )
    .option('--allow <a,b>', 'allow every tool of these servers (the consent a person would give)')
    .option('--page-size <n>', 'items per page of merged lists (default 100)')
    .option('--access-log <file>', "one JSON line per request to this file ('-': stderr)")
    .option('--log-arguments', 'with --access-log: include tool arguments')
    .option(
      '--instance-id <id>',
      'with --http: prefix session ids with <id>. so a load balancer can keep sessions sticky',
    )
    .option(
      '--legacy-sse',
      'with --http: also serve the legacy HTTP+SSE transport (MCP 2024-11-05) on /sse and /messages, for clients that speak only it',
    )
    .option(
      '--sse-poll <ms>',
      "with --http: end a call's SSE stream once it has run <ms>; 2025-11-25 clients resume it with Last-Event-ID (SSE polling)",
    )
    .option(
      '--list-wait <ms>',
      'how long a list request waits for servers still starting; the rest are announced as they come (default 2000)',
    )
    .option(
      '--drain-timeout <seconds>',
      'on SIGTERM, how long the calls in flight may run on while new work is refused (503) before the gateway stops (default 10)',
    )
    .option(
      '--session-idle <seconds>',
      'with --http: end a 2025-11-25 session unused this long, no stream open (default 1800)',
    )
    .action((opts: import('./commands/serve.js').ServeOptions) =>
      select(async (door) => (await import('./commands/serve.js')).runServe(door, opts)),
    );

  program
    .command('console')
    .description(
      'a page on 127.0.0.1 showing the servers, their tools (call them from a form), resources, prompts and the calls made; opened in the browser',
    )
    .option('--no-open', 'print the URL only; open no browser')
    .option('--port <port>', 'the loopback port (default: one the system picks)')
    .option('--open-app <server.tool>', "open that tool's MCP App on the page once it is listed")
    // A console for one call's link (mcpx call, the shell): the call read from stdin (cli/app-link/).
    .addOption(new Option('--for-call').hideHelp())
    .action((opts: import('./commands/console.js').ConsoleFlags) =>
      select(async (door) => (await import('./commands/console.js')).runConsole(door, opts)),
    );

  program
    .command('daemon')
    .description(
      'keep servers marked "keep_alive" running between commands: start [--all] | stop | status | metrics | restart',
    )
    .argument('<action>', 'start, stop, status, metrics (Prometheus text) or restart')
    .option('--all', 'with start: keep every configured server warm, not only keep_alive ones')
    .option('--idle <seconds>', 'with start: end the daemon after this long with no client (default 1800)')
    .addOption(new Option('--key <key>').hideHelp())
    .action((action: string, opts: import('./commands/daemon.js').DaemonOptions) =>
      select(async (door) => (await import('./commands/daemon.js')).runDaemon(door, action, opts)),
    );

  const config = program.command('config').description('inspect, validate and trust config files');
  config
    .command('path')
    .description('the files mcpx reads, in precedence order')
    .action(() => select(async (door) => (await import('./commands/config.js')).runConfigPath(door.open())));
  config
    .command('validate')
    .description('check every config file and report every problem')
    .action(() =>
      select(async (door) => (await import('./commands/config.js')).runConfigValidate(door.open())),
    );
  config
    .command('profiles')
    .description('the profiles of the config (--profile NAME), and the files that define or narrow them')
    .action(() =>
      select(async (door) => (await import('./commands/config.js')).runConfigProfiles(door.open())),
    );
  config
    .command('trust')
    .description('approve project config entries so their servers may start')
    .addOption(new Option('-y, --yes', 'approve every pending entry without asking'))
    .action((opts: { yes?: boolean }) =>
      select(async (door) =>
        (await import('./commands/config.js')).runConfigTrust(door.open(), opts.yes === true),
      ),
    );
  config
    .command('import')
    .description(
      "copy other client apps' servers into mcpx (every client app found, or those named), after a preview",
    )
    .argument(
      '[hosts...]',
      'client apps: claude-desktop, claude-code, cursor, vscode, windsurf, codex, gemini, opencode, zed',
    )
    .option('--scope <scope>', 'global (~/.mcpx/mcp.json, default) or project (./.mcpx/mcp.json)')
    .option('--dry-run', 'show the preview only')
    .option('-y, --yes', 'write without asking')
    .option(
      '--rename <old=new>',
      'import the server old under the name new (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--overwrite', 'replace existing servers of the same name')
    .option(
      '--copy-values',
      'copy env and header values and credentials in args and URLs in clear (default: variable references to set)',
    )
    .action((apps: string[], opts: import('./commands/config-import.js').ImportFlags) =>
      select(async (door) =>
        (await import('./commands/config-import.js')).runConfigImport(door.open(), apps, opts),
      ),
    );
  config
    .command('export')
    .description("mcpx's trusted servers in another client app's dialect, printed or written into its file")
    .option(
      '--to <host>',
      'the client app: claude-desktop, claude-code, cursor, vscode, windsurf, codex, gemini, opencode, zed',
    )
    .option('--servers <names>', 'only these servers (comma-separated)')
    .option('--write', "merge them into the client app's own file instead of printing")
    .option(
      '--via-gateway',
      "one entry that runs mcpx serve (all of mcpx's servers) instead of a copy of each; --name N names it (default: mcpx)",
    )
    .option(
      '--remove-copies',
      "take out of the client app's file the copies of mcpx's servers an earlier export wrote (shown; done with --write)",
    )
    .option('--profile <name>', 'with --via-gateway: the entry runs mcpx serve --profile <name>')
    .action((opts: import('./commands/config-export.js').ExportFlags) =>
      select(async (door) =>
        (await import('./commands/config-export.js')).runConfigExport(
          door.open({ ownsAdhocFlags: true }),
          opts,
        ),
      ),
    );

  const scopeHelp = 'global (~/.mcpx/mcp.json, the default) or project (./.mcpx/mcp.json)';
  config
    .command('add')
    .description(
      'add a server to a config file, keeping its comments: add <name> -- <command> [args…] | add <name> --url URL',
    )
    .argument('<name>')
    .argument('[command...]', 'the command that starts the server, after --')
    .option('--scope <scope>', scopeHelp)
    .option(
      '--env <K=V>',
      'a variable for the server (repeatable; $VAR references are kept as written)',
      repeat,
    )
    .option('--header <K:V>', 'with --url: an HTTP header (repeatable)', repeat)
    .option('--url <url>', 'a remote server instead of a command')
    .option('--type <type>', 'with --url: http or sse (default: Streamable HTTP, falling back to HTTP+SSE)')
    .option('--overwrite', 'replace a server of that name instead of refusing')
    .action((name: string, command: string[], opts: import('./commands/config-edit.js').ConfigAddFlags) =>
      select(async (door) =>
        (await import('./commands/config-edit.js')).runConfigAdd(
          door.open({ ownsAdhocFlags: true }),
          name,
          command,
          opts,
        ),
      ),
    );
  for (const [kind, what] of [
    ['remove', 'remove a server from a config file'],
    ['enable', 'switch a server back on (removes "enabled": false); with tools, switch those tools back on'],
    [
      'disable',
      'switch a server off ("enabled": false), keeping its entry; with tools, only those (disabled_tools)',
    ],
  ] as const) {
    const command = config
      .command(kind)
      .description(`${what}, keeping the file's comments`)
      .argument('<name>');
    if (kind !== 'remove') command.argument('[tools...]', "the server's tools to switch, by exact name");
    command.option('--scope <scope>', scopeHelp).action((name: string, ...rest: unknown[]) => {
      const tools = kind === 'remove' ? [] : (rest[0] as string[]);
      const opts = (kind === 'remove' ? rest[0] : rest[1]) as { scope?: string };
      return select(async (door) =>
        (await import('./commands/config-edit.js')).runConfigSwitch(door.open(), kind, name, opts, tools),
      );
    });
  }

  return program;
}
