import { ErrorCode, toMcpxError } from '../errors/index.js';
import type { AgentToolSet } from './agent-tools.js';
import type { AgentToolResult } from './result.js';
import type { ToolCallOptions } from './tool-source.js';

/**
 * A call on behalf of a model: whatever goes wrong that the model can act on
 * (bad arguments, an unknown tool, a denial, a server error) comes back as an
 * error result it can read and answer; only the user's cancellation throws.
 */
export async function callForModel(
  set: AgentToolSet,
  name: string,
  args: unknown,
  options: ToolCallOptions = {},
): Promise<AgentToolResult> {
  try {
    return await set.call(name, args, options);
  } catch (error) {
    const failure = toMcpxError(error);
    if (failure.code === ErrorCode.Cancelled || options.signal?.aborted) throw failure;
    const fix = failure.fixes[0] ? ` (${failure.fixes[0]})` : '';
    const text = `error [${failure.code}]: ${failure.message}${fix}`;
    return { parts: [{ type: 'text', text }], text, truncated: false, isError: true };
  }
}
