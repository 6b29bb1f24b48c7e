/**
 * The errors a stdio transport can raise while the server runs (our own framing, a send after
 * the end), each with the causes and fixes a person can act on. How a server failed to start or
 * ended (spawn error codes, exit status, stderr hints) is in stdio-exit-errors.ts, loaded only
 * when that happens: a call that ends well never compiles it.
 */
import { ErrorCode, McpxError } from '../../errors/index.js';

/** What every stdio error names. */
export interface StdioErrorScene {
  readonly serverName: string;
  /** The command as configured, and its arguments. */
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string | undefined;
  /** The environment the server was given. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
}

/** The server's command line as a person would type it. */
export const commandLine = (scene: StdioErrorScene) => [scene.command, ...scene.args].join(' ');

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} byte${bytes === 1 ? '' : 's'}`;
}

/** A line on stdout went past `max_line_bytes`; the transport closes. */
export function messageTooLargeError(
  scene: StdioErrorScene,
  limit: number,
  stderrTail: readonly string[],
): McpxError {
  return new McpxError(
    ErrorCode.MessageTooLarge,
    `server '${scene.serverName}' sent a message larger than the ${formatBytes(limit)} limit`,
    {
      server: scene.serverName,
      command: commandLine(scene),
      stderrTail,
      causes: [
        'the server returned a very large result (a big file, a long listing)',
        'the server writes something other than JSON-RPC to stdout without line breaks',
      ],
      fixes: [
        `raise the limit with "max_line_bytes" for this server in the config (now ${limit}; ` +
          `for example "max_line_bytes": ${limit * 4})`,
        'ask the server for less at a time (pagination, a smaller range)',
      ],
    },
  );
}

/**
 * A reply to `method` longer than `max_line_bytes`: that request fails, the connection
 * stays (the line was read to its end and dropped, so the stream is still in step).
 * LIST_TOO_LARGE for a list, MESSAGE_TOO_LARGE for anything else.
 */
export function replyTooLargeError(
  scene: StdioErrorScene,
  method: string,
  bytes: number,
  limit: number,
): McpxError {
  const list = /\/list$/.test(method);
  // A list too large to read is a list too large, as one past the caps of a list walk is.
  return new McpxError(
    list ? ErrorCode.ListTooLarge : ErrorCode.MessageTooLarge,
    `server '${scene.serverName}' answered ${method} with a ${formatSize(bytes)} message, ` +
      `over the ${formatBytes(limit)} limit on one message`,
    {
      server: scene.serverName,
      command: commandLine(scene),
      causes: [
        list
          ? `the server sends its whole list in one page, and the list is very large (many items, or long descriptions and schemas)`
          : 'the server returned a very large result (a big file, a long listing)',
      ],
      fixes: [
        `raise the limit for this server: "max_line_bytes": ${roomFor(bytes)} in its config entry (now ${limit})`,
        list
          ? "ask the server's authors to paginate the list, or disable tools it need not offer"
          : 'ask the server for less at a time (pagination, a smaller range)',
      ],
    },
  );
}

/** A limit with room for `bytes`: the next power of two at least a quarter above it. */
function roomFor(bytes: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, bytes * 1.25)));
}

/** A size as people read it, to one decimal. */
function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} byte${bytes === 1 ? '' : 's'}`;
}

/**
 * The server wrote to stdout, and none of it was a JSON-RPC message, for `graceMs` after
 * mcpx first asked it something: it is no MCP server on stdio, or it logs to stdout.
 */
export function notMcpOnStdioError(
  scene: StdioErrorScene,
  firstOutput: string,
  graceMs: number,
  stderrTail: readonly string[],
): McpxError {
  const seconds = graceMs / 1000;
  return new McpxError(
    ErrorCode.InvalidServerOutput,
    `server '${scene.serverName}' does not speak MCP on stdio: in ${seconds} s it wrote only this to ` +
      `stdout, and no JSON-RPC message: ${JSON.stringify(firstOutput)}`,
    {
      server: scene.serverName,
      command: commandLine(scene),
      stderrTail,
      causes: [
        'the command is not an MCP server on stdio: another program, or a server serving HTTP unless told otherwise',
        'it is an MCP server that writes its logs or a banner to stdout (where only JSON-RPC messages belong) and was not answering',
      ],
      fixes: [
        `run the command by hand to see what it prints: ${commandLine(scene)}`,
        'give it the flag it needs to speak MCP on stdio (often --stdio), or use its "url" instead',
        'make it log to stderr; mcpx keeps stderr for error reports',
      ],
    },
  );
}

/** Longest excerpt of a bad line kept in an error message. */
const PREVIEW_CHARS = 200;

/** A bad line, cut to a length an error message can hold. */
export function preview(line: string): string {
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS)}… (${line.length} chars)` : line;
}

/** A stdout line that is not a JSON-RPC message (reported, the transport stays open). */
export function invalidLineError(scene: StdioErrorScene, line: string, reason: string): McpxError {
  return new McpxError(
    ErrorCode.InvalidServerOutput,
    `server '${scene.serverName}' wrote a line to stdout that is not a JSON-RPC message (${reason}): ${preview(line)}`,
    {
      server: scene.serverName,
      command: commandLine(scene),
      causes: ['the server prints logs or banners to stdout, where only JSON-RPC messages belong'],
      fixes: ['configure the server to log to stderr (or quietly); the line was ignored'],
    },
  );
}

/**
 * A line that answers `method` (it names its id, or it was the only request
 * waiting) but is not a valid JSON-RPC message; without `method`, a line that
 * looks like a reply to no request mcpx can tell.
 */
export function malformedReplyError(
  scene: StdioErrorScene,
  method: string | undefined,
  line: string,
  reason: string,
): McpxError {
  const what = method
    ? `answered ${method} with a malformed line`
    : 'wrote a malformed JSON-RPC message to stdout';
  return new McpxError(
    ErrorCode.MalformedReply,
    `server '${scene.serverName}' ${what} (${reason}): ${preview(line)}`,
    {
      server: scene.serverName,
      command: commandLine(scene),
      causes: [
        'a bug in the server: its reply is cut short, or not the JSON-RPC 2.0 shape',
        'the server writes other output into the middle of its replies on stdout',
      ],
      fixes: ["report the line above to the server's authors", 'try a newer version of the server'],
    },
  );
}

/** send() on a transport whose server is gone or not started. */
export function notConnectedError(scene: StdioErrorScene, reason: McpxError | undefined): McpxError {
  return new McpxError(ErrorCode.ConnectionClosed, `server '${scene.serverName}' is not running`, {
    server: scene.serverName,
    command: commandLine(scene),
    ...(reason ? { cause: reason, stderrTail: reason.context.stderrTail ?? [] } : {}),
  });
}
