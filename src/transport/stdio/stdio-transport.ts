import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type { McpxError } from '../../errors/index.js';
import { inArrivalOrder } from '../response-order.js';
import { BoundedLineReader, DEFAULT_MAX_LINE_BYTES, type SkippedLine } from './bounded-line-reader.js';
import { asJsonRpcMessage, isRelayId } from './json-rpc-frame.js';
import { DEFAULT_CLOSE_GRACE_MS, DEFAULT_KILL_GRACE_MS, killTree } from './kill-tree.js';
import { type OrphanWatchdog, processWatchdog } from './orphan-watchdog.js';
import { looksLikeJsonRpc, type PendingRequest, PendingRequests } from './pending-requests.js';
import { resolveCommand } from './resolve-command.js';
import type { PackageInstallEvent } from './runner/install-watch.js';
import { type RunnerPlan, watchPackageRunner } from './runner/watch-runner.js';
import { buildServerEnv } from './safe-env.js';
import { readServerChain } from './server-chain.js';
import { DEFAULT_STDERR_TAIL_LINES, StderrTail } from './stderr-tail.js';
import {
  exitError,
  invalidLineError,
  malformedReplyError,
  messageTooLargeError,
  notConnectedError,
  notMcpOnStdioError,
  replyTooLargeError,
  type StdioErrorScene,
  spawnError,
} from './stdio-errors.js';
import { UnansweredQuestions } from './unanswered-questions.js';
import { spawnInvocation } from './windows-shim.js';
import { WriteQueue } from './write-queue.js';

/**
 * The JSON-RPC error code of the answer the transport gives a request in the
 * server's place when the server's own answer was malformed or too large to
 * read (-32700, "parse error"); `data` carries the key `failureFor()` knows it by.
 */
const UNREADABLE_REPLY_CODE = -32700;

/**
 * How long a server that has written only what is not JSON-RPC to stdout gets,
 * once mcpx has asked it something, to send its first message. A server that
 * prints a banner and then serves answers within milliseconds of it; one that
 * is no MCP server on stdio (or logs to stdout while it is not answering) is
 * told within a second, not after the whole connect timeout.
 */
const NOT_MCP_GRACE_MS = 1_000;
/** How much of that output the error quotes. */
const NOT_MCP_QUOTE_CHARS = 200;

/** Longest stderr line kept; longer ones are truncated (stderr is for people, not framing). */
const STDERR_MAX_LINE_BYTES = 64 * 1024;
/**
 * After the server exits, how long to wait for the rest of its stdout and
 * stderr: a response written just before exiting must still be delivered, and
 * the crash report needs the last stderr lines. Bounded because a grandchild
 * may hold the pipes open.
 */
const STREAM_FLUSH_MS = 500;

/** Options of {@link StdioTransport}. */
export interface StdioTransportOptions {
  /** The executable (on Windows it is looked up with PATHEXT; `.cmd` shims run through cmd.exe). */
  readonly command: string;
  readonly args?: readonly string[];
  /**
   * The server's complete environment, built with `buildServerEnv`. Default:
   * the safe keys of `process.env` only.
   */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Names the server in error messages. Default: the command. */
  readonly serverName?: string;
  /** Longest accepted stdout line (config `max_line_bytes`). Default 10 MB. */
  readonly maxLineBytes?: number;
  /** stderr lines kept for error messages. Default 20. */
  readonly stderrTailLines?: number;
  /** Every stderr line as it arrives (stderr is never printed by the transport). */
  readonly onStderrLine?: (line: string) => void;
  /**
   * A stdout line that is not a JSON-RPC message; the transport stays open.
   * Without this callback such a line is reported through `onerror` as an
   * InvalidServerOutput error instead — it is never dropped silently.
   */
  readonly onInvalidLine?: (line: string) => void;
  /**
   * A line that looks like a JSON-RPC message (it names `jsonrpc`) but is not a
   * valid one, and answers no request the transport can tell:
   * a MALFORMED_REPLY diagnostic; the transport stays open. (A line that answers a
   * known request fails that request instead.) Without this callback it is
   * handled as any other invalid line.
   */
  readonly onMalformedMessage?: (error: McpxError) => void;
  /** close(): how long the server gets to exit after its stdin closes. Default 1000 ms. */
  readonly closeGraceMs?: number;
  /** close(): how long the tree gets after SIGTERM before SIGKILL. Default 2000 ms. */
  readonly killGraceMs?: number;
  /** Default: `process.platform` (injectable for tests). */
  readonly platform?: NodeJS.Platform;
  /**
   * A server started through a package runner (`npx`, `uvx`, …): how long its
   * install may take, apart from the connect timeout. Default 5 minutes.
   */
  readonly installTimeoutMs?: number;
  /** A package runner's install started, finished, is waited for at a stop, or was rolled back. */
  readonly onPackageInstall?: (event: PackageInstallEvent) => void;
  /**
   * Ends the server's process group should this process die without closing it.
   * Default: the process's one `/bin/sh` watchdog (see `orphan-watchdog.ts`); none on
   * Windows, which has no process groups. `false`: none.
   */
  readonly watchdog?: OrphanWatchdog | false;
}

/** How the server process ended. */
export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * An MCP server as a child process speaking newline-delimited JSON-RPC on
 * stdin/stdout — mcpx's replacement for the SDK's StdioClientTransport. It adds
 * a bounded line length, CRLF tolerance, the last stderr lines for error
 * messages, errors that say what happened (command not found, crashed with
 * exit code and causes), backpressure with one `drain` wait, and a shutdown
 * that ends the server's whole process tree.
 *
 * Lifecycle: `start()` resolves once the process is spawned (or rejects with
 * CommandNotFound / SpawnPermissionDenied / SpawnFailed). If the server exits
 * on its own, `onerror` receives the ServerCrashed error and `onclose` fires;
 * `closeReason()` keeps that error. `close()` ends the tree and resolves once
 * it has exited; `onclose` fires exactly once in every case.
 *
 * @example
 * const transport = new StdioTransport({
 *   command: 'npx',
 *   args: ['-y', '@modelcontextprotocol/server-memory'],
 *   env: buildServerEnv({ hostEnv: process.env }),
 *   serverName: 'memory',
 * });
 * await client.connect(transport);
 */
export class StdioTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: Transport['onmessage'];
  /** stdio has no session id. */
  sessionId: string | undefined = undefined;
  /**
   * Replies to the requests a line relay sent on this pipe with ids of its own
   * (`isRelayId`): they go here, never to the SDK client, whose ids are numbers.
   */
  onrelayreply?: ((reply: JSONRPCMessage) => void) | undefined;

  readonly #options: StdioTransportOptions;
  readonly #platform: NodeJS.Platform;
  readonly #scene: StdioErrorScene;
  readonly #tail: StderrTail;
  readonly #watchdog: OrphanWatchdog | undefined;
  #child: ChildProcessWithoutNullStreams | undefined;
  #writer: WriteQueue | undefined;
  #streamsDone: Promise<void> = Promise.resolve();
  #started = false;
  #spawning: Promise<void> | undefined;
  /** Whether any write reached the server's stdin pipe (an exit before that is not caused by mcpx's input). */
  #sentAnything = false;
  /** Settles when onclose has fired, for a failed write that must report why the server went away. */
  readonly #closed: Promise<void>;
  #markClosed!: () => void;
  /** Messages that arrived between spawnEarly() and start(). */
  readonly #held: JSONRPCMessage[] = [];
  #exit: ExitInfo | undefined;
  #closeReason: McpxError | undefined;
  /** Kept for the crash report: a server that prints banners to stdout often dies of the same misconfiguration. */
  #firstInvalidLine: string | undefined;
  /** A JSON-RPC message has come from the server: it speaks MCP on stdio. */
  #spoke = false;
  /** A request has gone to the server. */
  #asked = false;
  /** What the server wrote to stdout before its first message (up to {@link NOT_MCP_QUOTE_CHARS}). */
  #unspokenOutput: string | undefined;
  #notMcpTimer: NodeJS.Timeout | undefined;
  #shutdown: Promise<void> | undefined;
  #closeFired = false;
  readonly #pending = new PendingRequests();
  readonly #questions = new UnansweredQuestions();
  /** The unreadable replies (malformed, too large) a request failed with, by the key in its error answer's `data`. */
  readonly #unreadable = new Map<string, McpxError>();
  /** Set when the server is started through a package runner (see runner/). */
  readonly #runner: RunnerPlan | undefined;

  constructor(options: StdioTransportOptions) {
    this.#options = options;
    this.#platform = options.platform ?? process.platform;
    this.#tail = new StderrTail(options.stderrTailLines ?? DEFAULT_STDERR_TAIL_LINES);
    this.#watchdog =
      options.watchdog === false || (options.watchdog === undefined && this.#platform === 'win32')
        ? undefined
        : (options.watchdog ?? processWatchdog(readServerChain(process.env).length));
    this.#closed = new Promise((resolve) => {
      this.#markClosed = resolve;
    });
    const env = options.env ?? buildServerEnv({ hostEnv: process.env, platform: this.#platform });
    this.#scene = {
      serverName: options.serverName ?? options.command,
      command: options.command,
      args: options.args ?? [],
      cwd: options.cwd,
      env,
      platform: this.#platform,
    };
    this.#runner = watchPackageRunner(this.#scene, {
      budgetMs: options.installTimeoutMs,
      onEvent: options.onPackageInstall,
    });
  }

  /** The server's process id once spawned. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /**
   * The server's stderr stream once spawned (the transport reads it itself;
   * see `stderrTail()`). Exposed because the SDK recognises a stdio transport
   * by its `stderr` and `pid` members, and only then treats a `server/discover`
   * probe that times out as "legacy server, fall back to initialize" instead
   * of a fatal error.
   */
  get stderr(): Readable | null {
    return this.#child?.stderr ?? null;
  }

  /** How the server exited, once it has. */
  exitInfo(): ExitInfo | undefined {
    return this.#exit;
  }

  /** The error that closed the transport (spawn failure, crash, oversized message); `undefined` after a plain close(). */
  closeReason(): McpxError | undefined {
    return this.#closeReason;
  }

  /**
   * The transport's own account of a request that failed: a reply the server
   * garbled (MALFORMED_REPLY, with the line) or made too large to read
   * (MESSAGE_TOO_LARGE, with its size), which the SDK only sees as the error
   * answer the transport gave in the server's place.
   */
  failureFor(error: unknown): McpxError | undefined {
    const data = (error as { data?: { mcpxUnreadableReply?: unknown } } | null)?.data;
    const key = data?.mcpxUnreadableReply;
    return typeof key === 'string' ? this.#unreadable.get(key) : undefined;
  }

  /** The server's last stderr lines, oldest first. */
  stderrTail(): string[] {
    return this.#tail.lines();
  }

  /**
   * Spawn the server now, before the protocol layer is loaded, so the server
   * boots while the host is still starting up (the CLI's cold call). Failures
   * surface from start(); messages that arrive before start() are held for it.
   */
  spawnEarly(): void {
    if (this.#spawning || this.#shutdown) return;
    this.#spawning = this.#spawn();
    this.#spawning.catch(() => {}); // start() reports it
  }

  /**
   * Before the handshake: spawns the server and, when a package runner
   * installs it first, resolves once the install is done — a wait with a
   * budget of its own (`installTimeoutMs`), apart from the connect timeout.
   * Rejects with Cancelled on `signal` (a stop then lets the install finish)
   * or PackageInstallTimeout (a stop then rolls it back). Resolves with the
   * time a first start may take beyond the connect timeout: the install budget
   * for a runner whose install cannot be watched, else 0.
   */
  async prepare(signal?: AbortSignal): Promise<number> {
    this.spawnEarly();
    try {
      await this.#spawning;
    } catch {
      return 0; // start() reports it
    }
    const runner = this.#runner;
    if (!runner) return 0;
    if (!runner.watch) return runner.budgetMs;
    await runner.watch.untilRunning(signal);
    return 0;
  }

  /** Spawns the server (unless spawnEarly() did). Rejects with an McpxError when it cannot be started. */
  async start(): Promise<void> {
    if (this.#started) throw new Error('StdioTransport already started');
    this.#started = true;
    if (this.#shutdown && !this.#spawning) throw notConnectedError(this.#scene, this.#closeReason);
    this.#spawning ??= this.#spawn();
    await this.#spawning;
    for (const message of this.#held.splice(0)) this.#deliver(message);
  }

  async #spawn(): Promise<void> {
    const { args, cwd, env } = this.#scene;
    const platform = this.#platform;
    // On Windows spawn only tries .com/.exe: look the command up with PATHEXT (npx → npx.cmd).
    const file =
      platform === 'win32'
        ? resolveCommand(this.#options.command, { env, platform, ...(cwd ? { cwd } : {}) }).file
        : this.#options.command;
    const invocation = spawnInvocation(file, args, { platform, env });
    const watch = this.#runner?.watch;
    if (watch) {
      await watch.beforeSpawn();
      // Closed meanwhile: close() found no child to end, so none may start now.
      if (this.#shutdown) throw notConnectedError(this.#scene, this.#closeReason);
    }

    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(invocation.file, invocation.args, {
        ...(cwd ? { cwd } : {}),
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
        // Own process group (POSIX), so close() can signal the whole tree. Not unref'd:
        // the host must not exit while a server it started is running.
        detached: platform !== 'win32',
        windowsHide: true,
        windowsVerbatimArguments: invocation.windowsVerbatimArguments,
        shell: false,
      });
    } catch (error) {
      // Synchronous failures: invalid arguments (a NUL byte), E2BIG, EMFILE.
      throw this.#failStart(spawnError(error as NodeJS.ErrnoException, this.#scene));
    }
    this.#child = child;
    // Detached, so its pid is its group's id.
    if (child.pid !== undefined) this.#watchdog?.guard(child.pid);
    this.#wire(child);
    this.#runner?.watch?.spawned({ pid: child.pid, exited: () => this.#exit !== undefined });

    await new Promise<void>((resolve, reject) => {
      const onSpawn = () => {
        child.removeListener('error', onError);
        resolve();
      };
      const onError = (error: NodeJS.ErrnoException) => {
        child.removeListener('spawn', onSpawn);
        reject(this.#failStart(spawnError(error, this.#scene)));
      };
      child.once('spawn', onSpawn);
      child.once('error', onError);
    });
  }

  /**
   * Writes one message as a line. Rejects with ConnectionClosed once the
   * server is gone; its `cause` says why (the crash with its exit code and
   * stderr), even when the write itself was the first to notice (EPIPE).
   */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#writer || this.#exit || this.#shutdown) {
      // Exited, its report still on the way (its last stderr lines being read): wait for it, as
      // for a broken pipe below, so the caller learns why rather than only "not running".
      if (this.#exit && !this.#shutdown) await settledWithin(this.#closed, STREAM_FLUSH_MS * 2);
      throw notConnectedError(this.#scene, this.#closeReason);
    }
    this.#pending.sent(message);
    this.#questions.sent(message);
    if (!this.#asked) {
      this.#asked = true;
      this.#watchForSilence();
    }
    try {
      await this.#writer.write(`${JSON.stringify(message)}\n`);
    } catch {
      // The pipe broke because the server died; its exit is reported a moment
      // later (after its last stderr lines are read). Wait for that report, so
      // the caller learns "crashed with code 1: <stderr>" rather than "EPIPE".
      await settledWithin(this.#closed, STREAM_FLUSH_MS * 2);
      throw notConnectedError(this.#scene, this.#closeReason);
    }
  }

  /**
   * Ends the server and its process tree (stdin close, SIGTERM, SIGKILL — see
   * `killTree`) and resolves once it has exited. Idempotent: every call
   * returns the same promise.
   */
  close(): Promise<void> {
    return this.#close(undefined);
  }

  #close(reason: McpxError | undefined): Promise<void> {
    this.#shutdown ??= this.#runShutdown(reason);
    return this.#shutdown;
  }

  async #runShutdown(reason: McpxError | undefined): Promise<void> {
    clearTimeout(this.#notMcpTimer);
    try {
      if (reason) {
        this.#closeReason = reason;
        this.#report(reason);
      }
      this.#writer?.fail(notConnectedError(this.#scene, this.#closeReason));
      const child = this.#child;
      if (child) {
        try {
          // Never end a package runner mid-install: that leaves a half-written folder npx reuses.
          await this.#runner?.watch?.beforeKill();
          await killTree(child, {
            platform: this.#platform,
            // A server the transport gave up on (it speaks no MCP, or past the limits) is not waited for.
            closeGraceMs: reason ? 0 : (this.#options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS),
            // A server waiting for an answer from mcpx will not exit by itself: nothing answers now.
            closeGraceEnds: this.#questions.waitedOn(),
            killGraceMs: this.#options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
          });
          await this.#flushed();
          await this.#runner?.watch?.afterKill();
        } finally {
          if (child.pid !== undefined) this.#watchdog?.release(child.pid);
          child.stdin.destroy();
          child.stdout.destroy();
          child.stderr.destroy();
        }
      }
    } catch (error) {
      // close() must settle and onclose must fire even if ending the tree went wrong.
      this.#report(error);
    } finally {
      this.#fireClose();
    }
  }

  #failStart(error: McpxError): McpxError {
    // No onerror here: start() rejecting with the error is the report.
    this.#closeReason = error;
    void this.#close(undefined);
    return error;
  }

  #wire(child: ChildProcessWithoutNullStreams): void {
    this.#writer = new WriteQueue(child.stdin, () => {
      this.#sentAnything = true;
    });
    // EPIPE when the server exits with writes pending: the exit handler reports what happened.
    child.stdin.on('error', () => this.#writer?.fail(notConnectedError(this.#scene, this.#closeReason)));

    const stdout = new BoundedLineReader({
      maxLineBytes: this.#options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      overflow: 'skip',
      onLine: (line) => this.#onStdoutLine(line),
      onOverflow: (_seen, head) => {
        // Only what may be a JSON-RPC message is read to its end; text without line breaks ends the stream.
        if (head?.trimStart().startsWith('{')) return;
        stdout.stop();
        void this.#close(messageTooLargeError(this.#scene, stdout.maxLineBytes, this.#tail.lines()));
      },
      onSkipped: (line) => this.#onOversized(line, stdout.maxLineBytes),
    });
    // Keep reading after an overflow (the reader ignores it): a server blocked on a full pipe could not exit.
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stdout.on('end', () => stdout.end());
    child.stdout.on('error', () => {});

    const stderr = new BoundedLineReader({
      maxLineBytes: STDERR_MAX_LINE_BYTES,
      overflow: 'truncate',
      onLine: (line) => {
        this.#tail.push(line);
        try {
          this.#options.onStderrLine?.(line);
        } catch (error) {
          this.#report(error);
        }
      },
    });
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stderr.on('end', () => stderr.end());
    child.stderr.on('error', () => {});

    const ended = (stream: NodeJS.ReadableStream) =>
      new Promise<void>((resolve) => {
        stream.once('end', resolve);
        stream.once('close', resolve);
      });
    this.#streamsDone = Promise.all([ended(child.stdout), ended(child.stderr)]).then(() => {});

    child.on('exit', (code, signal) => this.#onExit({ code, signal }));
    // After 'spawn', 'error' only comes from kill() or a failed IPC send; neither is fatal here.
    child.on('error', () => {});
  }

  async #onExit(exit: ExitInfo): Promise<void> {
    this.#exit = exit;
    if (this.#shutdown) return; // we asked for it
    await this.#flushed();
    if (this.#shutdown) return;
    void this.#close(
      exitError(this.#scene, exit, this.#tail.lines(), this.#firstInvalidLine, !this.#sentAnything),
    );
  }

  /** Waits for stdout and stderr to end, at most {@link STREAM_FLUSH_MS}. */
  #flushed(): Promise<void> {
    return settledWithin(this.#streamsDone, STREAM_FLUSH_MS);
  }

  #onStdoutLine(line: string): void {
    // A blank line between messages is not garbage.
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      if (!this.#shutdown) this.#invalid(line, 'not JSON', undefined);
      return;
    }
    const message = asJsonRpcMessage(parsed);
    // Once closing nobody listens, but a question the server asks still tells the shutdown it waits.
    if (this.#shutdown) {
      if (message) this.#questions.received(message);
      return;
    }
    if (!message) {
      this.#invalid(line, 'JSON, but not JSON-RPC 2.0', parsed);
      return;
    }
    this.#heard();
    this.#pending.received(message);
    this.#questions.received(message);
    this.#hand(message);
  }

  /**
   * A line longer than `max_line_bytes`, read to its end and dropped: a reply fails its
   * request with its size and the limit, and the connection stays; anything else (a
   * notification, a request, what cannot be told) cannot be answered for, and ends it.
   */
  #onOversized(line: SkippedLine, limit: number): void {
    if (this.#shutdown) return;
    const request = this.#pending.answeredByOversized(line.head, line.tail);
    if (!request) {
      void this.#close(messageTooLargeError(this.#scene, limit, this.#tail.lines()));
      return;
    }
    this.#heard();
    this.#failRequest(request, replyTooLargeError(this.#scene, request.method, line.bytes, limit));
  }

  /** Answers `request` in the server's place with `error`, which `failureFor()` gives back. */
  #failRequest(request: PendingRequest, error: McpxError): void {
    this.#pending.settle(request.id);
    const key = globalThis.crypto.randomUUID();
    this.#unreadable.set(key, error);
    this.#hand({
      jsonrpc: '2.0',
      id: request.id,
      error: { code: UNREADABLE_REPLY_CODE, message: error.message, data: { mcpxUnreadableReply: key } },
    });
  }

  /** The server sent a JSON-RPC message: it speaks MCP, whatever else it wrote. */
  #heard(): void {
    if (this.#spoke) return;
    this.#spoke = true;
    this.#unspokenOutput = undefined;
    clearTimeout(this.#notMcpTimer);
  }

  /**
   * Once the server has been asked something and has written only what is not JSON-RPC,
   * it has {@link NOT_MCP_GRACE_MS} to send a message before the connection ends with
   * what it wrote (see `notMcpOnStdioError`).
   */
  #watchForSilence(): void {
    if (this.#spoke || !this.#asked || this.#unspokenOutput === undefined || this.#notMcpTimer) return;
    this.#notMcpTimer = setTimeout(() => {
      if (this.#spoke || this.#shutdown) return;
      const output = this.#unspokenOutput ?? '';
      void this.#close(notMcpOnStdioError(this.#scene, output, NOT_MCP_GRACE_MS, this.#tail.lines()));
    }, NOT_MCP_GRACE_MS);
    this.#notMcpTimer.unref();
  }

  /** A line that is no JSON-RPC message at all, before the server's first message. */
  #unspoken(line: string): void {
    if (this.#spoke) return;
    const before = this.#unspokenOutput;
    if (before === undefined) this.#unspokenOutput = line.slice(0, NOT_MCP_QUOTE_CHARS);
    else if (before.length < NOT_MCP_QUOTE_CHARS)
      this.#unspokenOutput = `${before}\n${line}`.slice(0, NOT_MCP_QUOTE_CHARS);
    this.#watchForSilence();
  }

  #hand(message: JSONRPCMessage): void {
    if (this.onrelayreply && !('method' in message) && isRelayId((message as { id?: unknown }).id)) {
      this.onrelayreply(message);
      return;
    }
    if (this.#started) this.#deliver(message);
    else this.#held.push(message);
  }

  readonly #deliver = inArrivalOrder((message: JSONRPCMessage) => {
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.#report(error);
    }
  });

  #invalid(line: string, reason: string, parsed: unknown): void {
    this.#firstInvalidLine ??= line;
    const rpc = looksLikeJsonRpc(line, parsed);
    // JSON-RPC, if no valid message (a 2025 server refusing the probe without an id): it speaks it.
    if (rpc) this.#heard();
    else this.#unspoken(line);
    // A garbled answer fails its request now, naming the line, rather than after the whole timeout.
    const request = this.#pending.answeredBy(line, parsed);
    if (request) {
      this.#failRequest(request, malformedReplyError(this.#scene, request.method, line, reason));
      return;
    }
    const malformed = this.#options.onMalformedMessage;
    if (malformed && rpc && !this.#pending.refusesProbe(line, parsed)) {
      try {
        malformed(malformedReplyError(this.#scene, undefined, line, reason));
      } catch (error) {
        this.#report(error);
      }
      return;
    }
    const callback = this.#options.onInvalidLine;
    if (!callback) {
      this.#report(invalidLineError(this.#scene, line, reason));
      return;
    }
    try {
      callback(line);
    } catch (error) {
      this.#report(error);
    }
  }

  #report(error: unknown): void {
    try {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // a throwing error handler must not break the stream
    }
  }

  #fireClose(): void {
    if (this.#closeFired) return;
    this.#closeFired = true;
    this.#markClosed();
    try {
      this.onclose?.();
    } catch (error) {
      this.#report(error);
    }
  }
}

/** Waits for `promise` to settle, at most `ms`; never rejects. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.catch(() => {}),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
