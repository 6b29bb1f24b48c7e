import { suggest } from '../../config/loading.js';
import { ErrorCode, McpxError } from '../../errors/index.js';

/**
 * UNKNOWN_TOOL for `name` on `server`, with a did-you-mean among `names`. `helpFor(tool)` is the
 * command that shows a tool's help in this front end (`mcpx tools fs.read_file`, or the
 * shell's `@fs read_file ?`).
 */
export function unknownToolError(
  server: string,
  name: string,
  names: readonly string[],
  helpFor: (tool: string) => string,
  listCommand = `mcpx tools ${server}`,
): McpxError {
  const guess = suggest(name, names);
  return new McpxError(
    ErrorCode.UnknownTool,
    `'${server}' has no tool named '${name}'${guess ? ` — did you mean '${guess}'?` : ''}`,
    {
      server,
      tool: name,
      fixes: [
        guess
          ? `run \`${helpFor(guess)}\` to see how to call it`
          : `run \`${listCommand}\` to see its ${names.length} ${names.length === 1 ? 'tool' : 'tools'}`,
      ],
    },
  );
}
