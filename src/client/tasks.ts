/**
 * Task-augmented tool calls (2025-11-25 tasks, SEP-1686). The SDK 2.4.0 client has the
 * task schemas but no task flow: `callTool()` rejects a `CreateTaskResult`, and
 * `tasks/get` / `tasks/result` / `tasks/cancel` are not method-keyed, so each needs
 * its result schema passed. This module is that flow, over `Client.request()`.
 */
import type {
  CallToolResult,
  Client,
  RequestOptions,
  ServerCapabilities,
  Task,
  Tool,
} from '@modelcontextprotocol/client';
import { specTypeSchemas } from '@modelcontextprotocol/client';

/** What a running task reports, each time its status or message changes. */
export interface TaskStatusEvent {
  readonly taskId: string;
  readonly status: Task['status'];
  /** Untrusted server text: sanitize before showing it. */
  readonly statusMessage?: string;
}

/** Task lifetime we ask for; the server may shorten it. */
const TASK_TTL_MS = 10 * 60_000;
const DEFAULT_POLL_MS = 1_000;
// A server's pollInterval is a hint: never hammer it, never sleep through a minute.
const MIN_POLL_MS = 200;
const MAX_POLL_MS = 5_000;
// tasks/cancel goes out after the caller's signal fired, so it needs its own short limit.
const CANCEL_TIMEOUT_MS = 5_000;

/** Whether the server runs `tools/call` as a task at all (its `tasks.requests.tools.call` capability). */
export function serverRunsToolTasks(capabilities: ServerCapabilities): boolean {
  const tasks = (capabilities as { tasks?: { requests?: { tools?: { call?: unknown } } } }).tasks;
  return tasks?.requests?.tools?.call !== undefined;
}

/** A tool that can only be called as a task (`execution.taskSupport: "required"`). */
export function requiresTask(tool: Tool | undefined): boolean {
  return (
    (tool as { execution?: { taskSupport?: string } } | undefined)?.execution?.taskSupport === 'required'
  );
}

function isTerminal(status: Task['status']): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/**
 * Call a tool as a task: create it, follow its status (polling `tasks/get` at the
 * server's `pollInterval`, and listening to `notifications/tasks/status`), then fetch
 * the result with `tasks/result`. When `options.signal` aborts, `tasks/cancel` is sent
 * before the abort error is rethrown. Every request carries `options.timeout`.
 */
export async function callToolAsTask(
  client: Client,
  params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> },
  options: RequestOptions,
  onStatus?: (event: TaskStatusEvent) => void,
): Promise<CallToolResult> {
  const created = await client.request(
    { method: 'tools/call', params: { ...params, task: { ttl: TASK_TTL_MS } } },
    specTypeSchemas.CreateTaskResult,
    options,
  );
  let task: Task = created.task;
  let last = '';
  const report = (next: Task) => {
    const key = `${next.status}\u0000${next.statusMessage ?? ''}`;
    if (key === last) return;
    last = key;
    onStatus?.({
      taskId: next.taskId,
      status: next.status,
      ...(next.statusMessage === undefined ? {} : { statusMessage: next.statusMessage }),
    });
  };
  report(task);
  let wake: (() => void) | undefined;
  const stopListening = listenForStatus(client, task.taskId, (next) => {
    task = next;
    report(next);
    wake?.();
  });
  try {
    // input_required is answered through tasks/result (the server delivers its queued
    // requests there), so only `working` is worth waiting out here.
    while (task.status === 'working') {
      await sleep(pollDelay(task.pollInterval), options.signal, (resume) => {
        wake = resume;
      });
      wake = undefined;
      if (task.status !== 'working') break;
      const polled = await client.request(
        { method: 'tasks/get', params: { taskId: task.taskId } },
        specTypeSchemas.GetTaskResult,
        options,
      );
      task = polled as Task;
      report(task);
    }
    const result = await client.request(
      { method: 'tasks/result', params: { taskId: task.taskId } },
      specTypeSchemas.CallToolResult,
      options,
    );
    if (!isTerminal(task.status)) report({ ...task, status: result.isError ? 'failed' : 'completed' });
    return result as CallToolResult;
  } catch (error) {
    if (options.signal?.aborted) {
      const cancelled = await cancelTask(client, task.taskId);
      if (cancelled) report(cancelled);
    }
    throw error;
  } finally {
    stopListening();
  }
}

/** Best effort (the server may have finished or forgotten the task): the task as the server now has it, if it answered. */
async function cancelTask(client: Client, taskId: string): Promise<Task | undefined> {
  try {
    return (await client.request(
      { method: 'tasks/cancel', params: { taskId } },
      specTypeSchemas.CancelTaskResult,
      { timeout: CANCEL_TIMEOUT_MS },
    )) as Task;
  } catch {
    return undefined;
  }
}

function pollDelay(pollInterval: number | undefined): number {
  if (pollInterval === undefined || !Number.isFinite(pollInterval)) return DEFAULT_POLL_MS;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, pollInterval));
}

/** Waits `ms`, or less when woken (a status notification) or aborted (rejects with the reason). */
function sleep(
  ms: number,
  signal: AbortSignal | undefined,
  onWake: (wake: () => void) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
      resolve();
    };
    const aborted = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', aborted, { once: true });
    onWake(done);
  });
}

/**
 * `notifications/tasks/status` for one task. Several tasks may run on one client, so
 * handlers are kept per client and the SDK's single handler slot fans out to them.
 */
const statusListeners = new WeakMap<Client, Map<string, (task: Task) => void>>();

function listenForStatus(client: Client, taskId: string, listener: (task: Task) => void): () => void {
  let listeners = statusListeners.get(client);
  if (!listeners) {
    const map = new Map<string, (task: Task) => void>();
    listeners = map;
    statusListeners.set(client, map);
    client.setNotificationHandler(
      'notifications/tasks/status',
      { params: specTypeSchemas.TaskStatusNotificationParams },
      (params) => map.get(params.taskId)?.(params as Task),
    );
  }
  listeners.set(taskId, listener);
  return () => listeners.delete(taskId);
}
