/**
 * The conformance backend's tools that talk back while they run: logging, progress, a stream
 * closed mid-call (`test_reconnection`), the ones that need the client (sampling, the three
 * elicitations, a missing capability), and two of mcpx's own (URL elicitation, the roots listed).
 * The client is asked only through `inputRequired(...)`; on a 2025 connection the SDK's legacy
 * shim sends the real request and runs the handler again.
 */
import {
  type CallToolResult,
  type InputRequest,
  inputRequired,
  inputResponse,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { CONFORMANCE_BACKEND_NAME, clientCapabilities, elicitationRequest, text } from './conformance-kit.js';

/** Ask once through input_required, then answer with what came back. */
function askThenAnswer(
  ctx: ServerContext,
  key: string,
  request: InputRequest,
  answer: (response: Record<string, unknown>) => CallToolResult,
) {
  const response = ctx.mcpReq.inputResponses?.[key];
  if (response && typeof response === 'object') return answer(response as Record<string, unknown>);
  return inputRequired({ inputRequests: { [key]: request } });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Long because it registers the conformance suite's interactive tools, one after another.
export function registerInteractiveTools(server: McpServer): void {
  server.registerTool(
    'test_tool_with_logging',
    { description: 'Tests tool that emits log messages during execution' },
    async (ctx) => {
      for (const [i, message] of [
        'Tool execution started',
        'Tool processing data',
        'Tool execution completed',
      ].entries()) {
        if (i > 0) await sleep(50);
        await ctx.mcpReq.log('info', message, CONFORMANCE_BACKEND_NAME);
      }
      return text('Tool with logging executed successfully');
    },
  );
  server.registerTool(
    'test_tool_with_progress',
    { description: 'Tests tool that reports progress notifications' },
    async (ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await sleep(50);
        if (token !== undefined)
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: {
              progressToken: token,
              progress,
              total: 100,
              message: `Completed step ${progress} of 100`,
            },
          });
      }
      return text(String(token ?? 'no progress token'));
    },
  );
  server.registerTool(
    'test_reconnection',
    {
      description:
        'Tests SSE stream disconnection and client reconnection (SEP-1699): the stream closes mid-call and the result follows on the resumed one.',
    },
    async (ctx) => {
      ctx.http?.closeSSE?.();
      await sleep(100);
      return text(
        'Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.',
      );
    },
  );
  server.registerTool(
    'test_sampling',
    {
      description: 'Tests server-initiated sampling (LLM completion request)',
      inputSchema: z.object({ prompt: z.string().describe('The prompt to send to the LLM') }),
    },
    ({ prompt }, ctx) =>
      askThenAnswer(
        ctx,
        'sampling',
        inputRequired.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
          maxTokens: 100,
        }),
        (response) => {
          const content = response.content as { text?: unknown } | undefined;
          return text(`LLM response: ${typeof content?.text === 'string' ? content.text : 'No response'}`);
        },
      ),
  );
  server.registerTool(
    'test_elicitation',
    {
      description: 'Tests server-initiated elicitation (user input request)',
      inputSchema: z.object({ message: z.string().describe('The message to show the user') }),
    },
    ({ message }, ctx) =>
      askThenAnswer(
        ctx,
        'elicitation',
        // The schema the scenario's description asks for (the suite's own reference server asks
        // for a `response` its client never sends; a client that validates the answer refuses it).
        elicitationRequest(message, {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        }),
        (response) => text(`User response: ${describeElicitation(response)}`),
      ),
  );
  server.registerTool(
    'test_elicitation_sep1034_defaults',
    { description: 'Tests elicitation with default values per SEP-1034' },
    (ctx) =>
      askThenAnswer(
        ctx,
        'defaults',
        elicitationRequest('Please review and update the form fields with defaults', {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: {
              type: 'string',
              description: 'User status',
              enum: ['active', 'inactive', 'pending'],
              default: 'active',
            },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
          required: [],
        }),
        (response) => text(`Elicitation completed: ${describeElicitation(response)}`),
      ),
  );
  server.registerTool(
    'test_elicitation_sep1330_enums',
    { description: 'Tests elicitation with enum schema improvements per SEP-1330' },
    (ctx) =>
      askThenAnswer(
        ctx,
        'enums',
        elicitationRequest('Please select options from the enum fields', {
          type: 'object',
          properties: {
            untitledSingle: {
              type: 'string',
              description: 'Select one option',
              enum: ['option1', 'option2', 'option3'],
            },
            titledSingle: {
              type: 'string',
              description: 'Select one option with titles',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              description: 'Select one option (legacy)',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              description: 'Select multiple options',
              minItems: 1,
              maxItems: 3,
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              description: 'Select multiple options with titles',
              minItems: 1,
              maxItems: 3,
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
          required: [],
        }),
        (response) => text(`Elicitation completed: ${describeElicitation(response)}`),
      ),
  );
  // Not suite scenarios: mcpx's own end-to-end tests of URL elicitation and of the roots it gives.
  server.registerTool(
    'test_elicitation_url',
    {
      description: 'Asks the user to visit a URL (URL-mode elicitation) and says what they answered',
      inputSchema: z.object({ url: z.string().describe('The URL to ask the user to visit') }),
    },
    ({ url }, ctx) =>
      askThenAnswer(
        ctx,
        'visit',
        inputRequired.elicitUrl({ message: 'Sign the form there', url }),
        (response) => text(`User response: ${describeElicitation(response)}`),
      ),
  );
  server.registerTool(
    'test_elicitation_pair',
    { description: 'Asks the user two questions in one round and says what they answered' },
    (ctx) => {
      const answered = ['first', 'second'].map((key) => ctx.mcpReq.inputResponses?.[key]);
      if (answered.every((response) => response && typeof response === 'object'))
        return text(
          `User responses: ${answered.map((r) => describeElicitation(r as Record<string, unknown>)).join('; ')}`,
        );
      const ask = (message: string) =>
        elicitationRequest(message, { type: 'object', properties: { answer: { type: 'string' } } });
      return inputRequired({
        inputRequests: { first: ask('first question'), second: ask('second question') },
      });
    },
  );
  server.registerTool('test_list_roots', { description: "Lists the client's roots (their URIs)" }, (ctx) =>
    askThenAnswer(ctx, 'roots', inputRequired.listRoots(), (response) => {
      const view = inputResponse({ r: response }, 'r');
      const uris = view.kind === 'roots' ? view.roots.map((root) => root.uri) : [];
      return text(`Roots: ${uris.join(' ') || '(none)'}`);
    }),
  );
  server.registerTool('test_missing_capability', { description: 'Test tool requiring sampling' }, (ctx) => {
    if (clientCapabilities(ctx, server).sampling) return text('Success');
    // Asking a client for sampling it did not declare: the SDK answers -32021 (HTTP 400 on 2026-07-28)
    // itself. Thrown from here, McpServer would turn the error into an isError result instead.
    return inputRequired({
      inputRequests: {
        sampling: inputRequired.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'ping' } }],
          maxTokens: 10,
        }),
      },
    });
  });
}

function describeElicitation(response: Record<string, unknown>): string {
  const view = inputResponse({ r: response }, 'r');
  if (view.kind !== 'elicit') return 'action=unknown, content={}';
  return `action=${view.action}, content=${JSON.stringify(view.content ?? {})}`;
}
