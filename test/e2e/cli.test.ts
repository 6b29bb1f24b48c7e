import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { descendantPids } from '../helpers/processes.js';

let dir: { path: string; remove: () => Promise<void> };
let home: string;
let work: string;

beforeAll(async () => {
  dir = await tempDir('mcpx-e2e-');
  home = join(dir.path, 'home');
  work = join(dir.path, 'work');
  await mkdir(home, { recursive: true });
  await mkdir(work, { recursive: true });
});
afterAll(() => dir.remove());

const mcpx = (args: string[], env?: Record<string, string>, cwd = work): Promise<CliRun> =>
  runCli(args, { cwd, home, ...(env ? { env } : {}) });

describe('mcpx with no config at all', () => {
  it('lists the built-in demo server as ready with its tools', async () => {
    const run = await mcpx(['list']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^SERVER\s+STATE\s+TOOLS\s+PROTOCOL\s+ORIGIN/);
    expect(run.stdout).toMatch(/demo\s+ready\s+\d+\s+\S+\s+builtin/);
  });

  it('lists tools with their parameters', async () => {
    const run = await mcpx(['tools', 'demo']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('demo (');
    expect(run.stdout).toMatch(/echo\(message: string\)/);
    expect(run.stdout).toMatch(/add\(a: number, b: number\)/);
  });

  it('calls a tool and prints its text', async () => {
    const run = await mcpx(['call', 'demo.echo', 'message=hello from mcpx']);
    expect(run).toMatchObject({ code: 0, stdout: 'hello from mcpx\n', stderr: '' });
  });

  it('calls a tool with a JSON object and --json output', async () => {
    const run = await mcpx(['call', 'demo.add', '{"a": 2, "b": 3}', '--json']);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.content[0]).toEqual({ type: 'text', text: '5' });
    expect(result.structuredContent).toEqual({ sum: 5 });
  });

  it('exits 5 when the tool reports an error, with a JSON error on stderr', async () => {
    const run = await mcpx(['call', 'demo.fail', '--json']);
    expect(run.code).toBe(5);
    expect(JSON.parse(run.stdout).isError).toBe(true);
    const error = JSON.parse(run.stderr.trim());
    expect(error.error).toMatchObject({ code: 'TOOL_ERROR', server: 'demo', tool: 'fail' });
  });

  it('reads a resource and renders a prompt', async () => {
    const read = await mcpx(['read', 'demo', 'test://readme.txt']);
    expect(read.code).toBe(0);
    expect(read.stdout.length).toBeGreaterThan(10);
    const prompt = await mcpx(['prompt', 'demo.greeting', 'name=Ada']);
    expect(prompt.code).toBe(0);
    expect(prompt.stdout).toContain('Ada');
  });

  it('names an unknown server with a suggestion and exits 1', async () => {
    const run = await mcpx(['call', 'dmeo.echo', 'message=x']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("no server named 'dmeo' — did you mean 'demo'?");
  });

  it('names an unknown tool with a suggestion', async () => {
    const run = await mcpx(['call', 'demo.ecko', 'message=x']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("'demo' has no tool named 'ecko' — did you mean 'echo'?");
  });

  it('calls an ad-hoc --stdio server without a prefix', async () => {
    const run = await mcpx([
      '--stdio',
      `${process.execPath} ${testServerPath}`,
      'call',
      'echo',
      'message=adhoc',
    ]);
    expect(run).toMatchObject({ code: 0, stdout: 'adhoc\n' });
  });
});

describe('mcpx with a config file', () => {
  it('reports invalid JSON with file, line, column and exits 2', async () => {
    const file = join(dir.path, 'bad.json');
    await writeFile(file, '{\n  "mcpServers": {\n    "a": { "command": "x" "args": [] }\n  }\n}\n');
    const run = await mcpx(['--config', file, 'list']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}:3:`);
    expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    const verbose = await mcpx(['--config', file, '--verbose', 'list']);
    expect(verbose.stderr).toContain('"a": { "command": "x" "args": [] }');
    expect(verbose.stderr).toContain('^');
  });

  it('reports a crashed server with its exit code and last stderr line, exit 4', async () => {
    const file = join(dir.path, 'crash.json');
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          crashy: {
            command: process.execPath,
            args: [testServerPath],
            env: { MCPX_TEST_FAULT: 'crash-mid-call' },
          },
        },
      }),
    );
    const run = await mcpx(['--config', file, '--verbose', 'call', 'crashy.echo', 'message=x']);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('exit code');
    expect(run.stderr).toContain('3');
    expect(run.stderr).toContain('fatal: simulated crash');
  });

  it('strips terminal controls a crashing server wrote to stderr from the error it prints', async () => {
    const file = join(dir.path, 'hostile.json');
    // An OSC 52 clipboard write, a screen clear, an 8-bit CSI and a colour, then a crash.
    const script = `process.stderr.write('\\x1b]52;c;ZXZpbA==\\x07\\x1b[2Jboom \\u009b2J\\x1b[31mred\\n'); process.exit(2)`;
    await writeFile(
      file,
      JSON.stringify({ mcpServers: { hostile: { command: process.execPath, args: ['-e', script] } } }),
    );
    for (const flags of [[], ['--verbose']]) {
      const run = await mcpx(['--config', file, ...flags, 'call', 'hostile.echo', 'message=x']);
      expect(run.code).toBe(4);
      expect(run.stderr).not.toMatch(/[\u001b\u009b]/);
      if (flags.length) expect(run.stderr).toContain('boom red');
    }
    const json = await mcpx(['--config', file, '--json', 'call', 'hostile.echo', 'message=x']);
    expect(json.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(JSON.stringify(JSON.parse(json.stderr))).toContain('\\u001b]52');
  });

  it('skips an untrusted project server until `config trust --yes`', async () => {
    const project = join(dir.path, 'project');
    await mkdir(project, { recursive: true });
    await writeFile(
      join(project, '.mcp.json'),
      JSON.stringify({ mcpServers: { local: { command: process.execPath, args: [testServerPath] } } }),
    );
    const before = await mcpx(['call', 'local.echo', 'message=x'], undefined, project);
    expect(before.code).toBe(2);
    expect(before.stderr).toContain('mcpx config trust');
    const trust = await mcpx(['config', 'trust', '--yes'], undefined, project);
    expect(trust.code).toBe(0);
    const after = await mcpx(['call', 'local.echo', 'message=trusted'], undefined, project);
    expect(after).toMatchObject({ code: 0, stdout: 'trusted\n' });
  });

  it('validates config files and shows the discovery path', async () => {
    const path = await mcpx(['config', 'path', '--json']);
    expect(path.code).toBe(0);
    const paths = JSON.parse(path.stdout) as { layer: string; path: string }[];
    expect(paths.map((p) => p.layer)).toContain('global');
    const validate = await mcpx(['config', 'validate']);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toMatch(/^ok: /);
  });
});

describe('Ctrl-C', () => {
  it('cancels a running call, exits 130, and leaves no process behind', async () => {
    let pid = 0;
    const run = await runCli(['call', 'demo.slow_operation', 'steps=100', 'delay_ms=100'], {
      cwd: work,
      home,
      onSpawn: (p) => {
        pid = p;
        // Interrupt only once the call is under way: mcpx has started the server (on a loaded
        // machine Node's own start-up can outlast a fixed delay) and had time to send the call.
        const poll = setInterval(() => {
          if (descendantPids(p).length === 0) return;
          clearInterval(poll);
          setTimeout(() => process.kill(p, 'SIGINT'), 700);
        }, 50);
      },
    });
    expect(pid).toBeGreaterThan(0);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('cancelled');
  });
});

describe('mcpx in a pipeline', () => {
  it('stops quietly when the reader goes away (`mcpx tools | head -1`)', async () => {
    const { spawnSync } = await import('node:child_process');
    const { cliPath } = await import('../helpers/cli.js');
    const result = spawnSync(
      'sh',
      ['-c', `"${process.execPath}" "${cliPath}" tools demo --schema | head -1`],
      {
        cwd: work,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, MCPX_HOME: join(home, '.mcpx') },
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    expect(result.stdout).toBe('demo (10 tools)\n');
    expect(result.stderr).toBe('');
  });
});

describe("a server's allowed_tools and disabled_tools", () => {
  it('hold for tools, tools server.tool and call alike', async () => {
    const config = join(dir.path, 'filtered.json');
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          one: {
            command: process.execPath,
            args: [testServerPath],
            allowed_tools: ['echo', 'add'],
            disabled_tools: ['add'],
          },
        },
      }),
    );
    const tools = await mcpx(['--config', config, 'tools', 'one']);
    expect(tools.code).toBe(0);
    expect(tools.stdout).toContain('one (1 tool)');
    expect(tools.stdout).toContain('echo(');
    expect(tools.stdout).not.toContain('add(');
    const help = await mcpx(['--config', config, 'tools', 'one.add']);
    expect(help.code).not.toBe(0);
    const call = await mcpx(['--config', config, 'call', 'one.add', 'a=1', 'b=2']);
    expect(call.code).toBe(6);
    expect(call.stdout).toBe('');
    expect(call.stderr).toContain("'add' of 'one' is switched off in the config");
  });
});
