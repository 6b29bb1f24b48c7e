import { join } from 'node:path';
import { type IPty, spawn } from '@lydell/node-pty';
import { cliPath } from './cli.js';

/** Escape sequences a terminal interprets (colours, cursor moves), removed to read the screen as text. */
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>]/g;

/** The built mcpx in a real pseudo-terminal, as a person runs it. */
export interface PtyRun {
  /** Everything written to the terminal so far, escape sequences removed. */
  text(): string;
  /** Everything written, raw. */
  raw(): string;
  /** Wait until the screen shows `what` after what earlier waits consumed (a string or a pattern). */
  waitFor(what: string | RegExp, timeoutMs?: number): Promise<void>;
  /** Type keys, one write each, a little apart (as a person would). */
  type(...keys: string[]): Promise<void>;
  /** Resolves with the exit code once mcpx has exited. */
  readonly exited: Promise<number>;
  readonly pid: number;
  kill(signal?: string): void;
}

export interface PtyOptions {
  readonly cwd: string;
  readonly home: string;
  readonly env?: Record<string, string>;
  readonly cols?: number;
}

export function runInPty(args: readonly string[], options: PtyOptions): PtyRun {
  const term: IPty = spawn(process.execPath, [cliPath, ...args], {
    name: 'xterm-256color',
    cols: options.cols ?? 120,
    rows: 40,
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: options.home,
      MCPX_HOME: join(options.home, '.mcpx'),
      TERM: 'xterm-256color',
      ...options.env,
    },
  });
  let raw = '';
  let consumed = 0;
  term.onData((data) => {
    raw += data;
  });
  const exited = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
  const text = () => raw.replace(ANSI, '').replace(/\r/g, '');
  return {
    text,
    raw: () => raw,
    pid: term.pid,
    exited,
    kill: (signal) => term.kill(signal),
    async waitFor(what, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const screen = text();
        const rest = screen.slice(consumed);
        const at = typeof what === 'string' ? rest.indexOf(what) : rest.search(what);
        if (at >= 0) {
          const length =
            typeof what === 'string' ? what.length : (rest.slice(at).match(what)?.[0].length ?? 0);
          consumed += at + length;
          return;
        }
        if (Date.now() > deadline) {
          throw new Error(`the terminal never showed ${String(what)}; it shows:\n${screen.slice(-3000)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async type(...keys) {
      for (const key of keys) {
        term.write(key);
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    },
  };
}
