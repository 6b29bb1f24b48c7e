import { spawn } from 'node:child_process';
import { join } from 'node:path';
import {
  type FakeModelServer,
  type ScriptedReply,
  startFakeModelServer,
} from '../../src/testing/fake-model-server.js';
import { cliPath } from './cli.js';
import { type PtyRun, runInPty } from './pty.js';

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
export interface ChatOptions {
  readonly baseUrl: string;
  readonly cwd: string;
  readonly home: string;
  readonly args?: readonly string[];
  readonly globalArgs?: readonly string[];
  readonly input?: string;
  readonly inputDelayMs?: number;
}

export function runChat(options: ChatOptions): Promise<ChatRun> {
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

/**
 * `runChat` against a model scripted with `script`, started for this run and
 * added to `models` (the caller closes them after each test).
 */
export async function runChatWithModel(
  script: ScriptedReply[],
  options: Omit<ChatOptions, 'baseUrl'>,
  models: FakeModelServer[],
): Promise<ChatRun & { model: FakeModelServer }> {
  const model = await startFakeModelServer(script);
  models.push(model);
  return { ...(await runChat({ ...options, baseUrl: model.baseUrl })), model };
}

/**
 * `mcpx chat` on a real terminal against a model scripted with `script`; the
 * terminal and the model are ended by what is pushed onto `cleanups`.
 */
export async function chatInPty(
  script: ScriptedReply[],
  options: { readonly cwd: string; readonly home: string },
  cleanups: (() => Promise<void> | void)[],
): Promise<{ term: PtyRun; model: FakeModelServer }> {
  const model = await startFakeModelServer(script);
  const term = runInPty(['chat', '--base-url', model.baseUrl, '--model', 'fake'], {
    ...options,
    env: { OPENAI_API_KEY: 'sk-test' },
  });
  cleanups.push(
    () => term.kill(),
    () => model.close(),
  );
  return { term, model };
}
