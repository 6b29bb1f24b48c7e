import type { AuditDecision, AuditedCall } from '../audit/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import type { ToolCallGuard } from '../permissions/index.js';
import { argumentsObject } from './arguments-object.js';
import { type AgentToolResult, convertToolResult } from './result.js';
import type { RoutedTool } from './router.js';
import type { SchemaWarnings } from './schema-warnings.js';
import type { ToolCallOptions } from './tool-source.js';
import { checkAgainstSchema, formatProblems } from './validate.js';

/** What every checked call of one tool set shares. */
export interface CheckedCallContext {
  readonly guard: ToolCallGuard;
  readonly agentId?: string;
  readonly maxTextLength?: number;
  readonly warnings: SchemaWarnings;
}

/**
 * One call of a routed tool, in order: its arguments validated against the input schema, the
 * guard's decision (for an MCP tool), the call, the result converted and checked against the
 * output schema. Each step is told to `audited`.
 */
export async function callChecked(
  routed: RoutedTool,
  rawArgs: unknown,
  callOptions: ToolCallOptions,
  audited: AuditedCall | undefined,
  context: CheckedCallContext,
): Promise<AgentToolResult> {
  const args = argumentsObject(rawArgs, routed.name, { server: routed.source.id, tool: routed.tool.name });
  const check = checkAgainstSchema(routed.parameters, args);
  if (check.ok === 'unchecked')
    context.warnings.warnOnce(routed.parameters, routed, 'inputSchema', check.reason);
  if (check.ok === false) {
    const problems = formatProblems(check.problems);
    throw new McpxError(
      ErrorCode.InvalidArguments,
      `invalid arguments for '${routed.name}': ${problems.join('; ')}`,
      {
        server: routed.source.id,
        tool: routed.tool.name,
        causes: problems,
        fixes: ["call it again with arguments that match the tool's parameters"],
      },
    );
  }
  if (routed.source.guarded) {
    let decision: AuditDecision = { result: 'allowed', by: 'guard' };
    await context.guard.check(
      {
        ...(context.agentId === undefined ? {} : { agentId: context.agentId }),
        server: routed.source.id,
        tool: routed.tool,
        args,
      },
      {
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
        onDecision: (d) => {
          decision = d;
          audited?.decided(d);
        },
      },
    );
    // A guard of the program's own may say nothing of how it decided.
    audited?.decided(decision);
  }
  const result = await routed.source.callTool(routed.tool.name, args, callOptions);
  audited?.returned(result);
  const outputSchema = routed.tool.outputSchema as object | undefined;
  return convertToolResult(result, {
    server: routed.source.id,
    tool: routed.tool.name,
    ...(outputSchema
      ? {
          outputSchema,
          onUncheckedSchema: (reason: string) =>
            context.warnings.warnOnce(outputSchema, routed, 'outputSchema', reason),
        }
      : {}),
    ...(context.maxTextLength ? { maxTextLength: context.maxTextLength } : {}),
  });
}
