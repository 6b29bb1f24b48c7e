import type { CallToolResult } from '@modelcontextprotocol/client';
import { errorToJson } from '../errors/index.js';

/** One call made from the console, as the page shows it. */
export interface ConsoleCall {
  readonly id: number;
  readonly server: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** Epoch milliseconds when the call was made. */
  readonly startedAt: number;
  state: 'running' | 'done' | 'failed';
  /** Milliseconds the call took, once it ended. */
  ms?: number;
  result?: CallToolResult;
  /** Why the call could not be made (`errorToJson`'s shape), when it rejected. */
  error?: Record<string, unknown>;
}

/** The calls made this session, newest last, at most `limit` of them. */
export interface CallHistory {
  list(): readonly ConsoleCall[];
  /** Record a call as it starts; settle it with its outcome. */
  begin(server: string, tool: string, args: Record<string, unknown>): ConsoleCall;
  returned(call: ConsoleCall, result: CallToolResult): void;
  failed(call: ConsoleCall, error: unknown): void;
}

/** A bounded history: the oldest call goes when a new one would pass `limit` (default 1,000). */
export function createCallHistory(changed: () => void, limit = 1000): CallHistory {
  const calls: ConsoleCall[] = [];
  let next = 1;
  const end = (call: ConsoleCall) => {
    call.ms = Date.now() - call.startedAt;
    changed();
  };
  return {
    list: () => calls,
    begin(server, tool, args) {
      const call: ConsoleCall = { id: next++, server, tool, args, startedAt: Date.now(), state: 'running' };
      calls.push(call);
      if (calls.length > limit) calls.splice(0, calls.length - limit);
      changed();
      return call;
    },
    returned(call, result) {
      call.state = 'done';
      call.result = result;
      end(call);
    },
    failed(call, error) {
      call.state = 'failed';
      call.error = errorToJson(error).error;
      end(call);
    },
  };
}
