/**
 * The local console: a page mcpx serves on 127.0.0.1 for a person who would rather look than
 * read a terminal. A front end over one host (`createHost`), as the gateway is: it shows the
 * host's servers (state, era, errors), their tools with a form made from each input schema,
 * resources and prompts, and the calls made from it, which go through `Host.callTool` as
 * `mcpx call`'s do. Permission questions the host asks are answered on the page
 * (`createPageQuestions`). The MCP Apps host comes next, beside the page: a tool's UI resource
 * rendered in a sandboxed frame of a second origin, its tool calls through the host's guard.
 */
export { type CallHistory, type ConsoleCall, createCallHistory } from './call-history.js';
export {
  CONSOLE_CSP,
  type ConsoleOptions,
  consoleCsp,
  createConsole,
  type RunningConsole,
} from './console-server.js';
export { HELD_CALL_LIMIT, type HeldCall, parseHeldCall } from './held-call.js';
export { createPageQuestions, type PageQuestion, type PageQuestions } from './page-questions.js';
export { checkRequest, type Refusal, type RequestCheckOptions } from './request-check.js';
