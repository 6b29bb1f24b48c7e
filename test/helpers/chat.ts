import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { cliPath } from './cli.js';

export interface ChatRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The built `mcpx chat` without a terminal, talking to a scripted model at
 * `baseUrl`: `args` go before (`globalArgs`) and after `chat`; `input` is
 * piped to stdin (after `inputDelayMs`), or stdin is closed when absent.
 */
export function runChat(options: {
  readonly baseUrl: string;
  readonly cwd: string;
  readonly home: string;
  readonly args?: readonly string[];
  readonly globalArgs?: readonly string[];
  readonly input?: string;
  readonly inputDelayMs?: number;
}): Promise<ChatRun> {
  const child = spawn(
    process.execPath,
    [
      cliPath,
      ...(options.globalArgs ?? []),
      'chat',
      '--base-url',
      options.baseUrl,
      '--model',
      'fake',
      ...(options.args ?? []),
    ],
    {
      cwd: options.cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: options.home,
        MCPX_HOME: join(options.home, '.mcpx'),
        OPENAI_API_KEY: 'sk-e2e',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  // A server may add tools just after it connects (server-everything does): input can wait.
  setTimeout(() => child.stdin.end(options.input ?? ''), options.inputDelayMs ?? 0);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
