import { describe, expect, it } from 'vitest';
import { planHandOver } from '../../../../src/config/client-apps/hand-over-args.js';

const options = { flag: '--mcp-config', file: '/run/f.json', strict: true };
const flags = ['--mcp-config=/run/f.json', '--strict-mcp-config'];

describe('planHandOver', () => {
  it('Claude Code: first, in one word, for a session (with or without a prompt)', () => {
    expect(planHandOver('claude', [], options).args).toEqual(flags);
    expect(planHandOver('/usr/local/bin/claude', ['-p', 'hi'], options).args).toEqual([...flags, '-p', 'hi']);
    expect(planHandOver('claude', ['--model', 'opus', 'fix it'], options).args).toEqual([
      ...flags,
      '--model',
      'opus',
      'fix it',
    ]);
    // After `--`, `mcp` is a prompt, not a subcommand.
    expect(planHandOver('claude', ['--', 'mcp'], options).args).toEqual([...flags, '--', 'mcp']);
  });

  it('Claude Code: after `agents`, and not at all for the subcommands that read their own files', () => {
    expect(planHandOver('claude', ['agents', '--json'], options).args).toEqual([
      'agents',
      ...flags,
      '--json',
    ]);
    for (const args of [
      ['mcp', 'list'],
      ['mcp', 'get', 'x'],
      ['doctor'],
      ['plugin', 'list'],
      ['--debug', 'mcp', 'list'],
    ])
      expect(planHandOver('claude.exe', args, options)).toEqual({
        handsOver: false,
        args,
        subcommand: args.find((a) => !a.startsWith('-')),
      });
  });

  it('another agent (or another flag): after its arguments, before its own `--`', () => {
    expect(planHandOver('agent', ['run'], { ...options, strict: false }).args).toEqual([
      'run',
      '--mcp-config',
      '/run/f.json',
    ]);
    expect(planHandOver('agent', ['run', '--', 'x'], options).args).toEqual([
      'run',
      '--mcp-config',
      '/run/f.json',
      '--strict-mcp-config',
      '--',
      'x',
    ]);
    expect(planHandOver('claude', ['mcp'], { ...options, flag: '--servers-file' }).args).toEqual([
      'mcp',
      '--servers-file',
      '/run/f.json',
      '--strict-mcp-config',
    ]);
  });
});
