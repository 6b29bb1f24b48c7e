import type { Tool } from '@modelcontextprotocol/client';
import type { AuditDecision } from '../audit/index.js';

/**
 * How much an agent may do with MCP servers without asking a person:
 * `yolo` never asks, `trusted` asks on first use of a server, `sandboxed`
 * has no MCP access at all.
 */
export type PermissionLevel = 'yolo' | 'trusted' | 'sandboxed';

/** One tool call an agent wants to make, as the permission layer sees it. */
export interface ToolCallRequest {
  /** The agent asking; undefined for a single-agent host. */
  readonly agentId?: string;
  readonly server: string;
  /** The definition the agent was shown (name, description, schemas). */
  readonly tool: Tool;
  readonly args: Readonly<Record<string, unknown>>;
}

/**
 * The contract between the agent-tool layer (`src/tools`) and the permission
 * layer (`src/permissions`): every agent tool call passes `check()` before the
 * server is called. `check()` resolves to allow and rejects with an McpxError
 * of code PERMISSION_DENIED (exit code 6) to deny, saying why and how to allow it.
 */
export interface ToolCallGuard {
  check(request: ToolCallRequest, options?: ToolCallCheckOptions): Promise<void>;
}

/** How one `check()` runs: cancellation, and a callback told how the call was decided. */
export interface ToolCallCheckOptions {
  readonly signal?: AbortSignal;
  /**
   * Told how the call was decided, before `check()` settles: allowed (by what), confirmed (by
   * whom), denied (by what or whom, and why). The audit log's source of decisions.
   */
  readonly onDecision?: (decision: AuditDecision) => void;
}
