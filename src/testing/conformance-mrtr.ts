/**
 * The conformance backend's multi-round-trip tools (`input-required-result-*` scenarios,
 * SEP-2322) and the 2026-07-28 diagnostics (`test_logging_tool`, `test_streaming_elicitation`,
 * `test_trigger_*_change`). Every `requestState` is sealed by the state's HMAC codec, so a
 * tampered one is refused (-32602) before a handler runs.
 */
import { randomUUID } from 'node:crypto';
import {
  type InputRequest,
  inputRequired,
  inputResponse,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type ConformanceState, clientCapabilities, text } from './conformance-kit.js';

const ask = (message: string, field: string, type = 'string'): InputRequest =>
  ({
    method: 'elicitation/create',
    params: {
      message,
      requestedSchema: { type: 'object', properties: { [field]: { type } }, required: [field] },
    },
  }) as InputRequest;

/** The accepted elicitation field `field` of response `key`, if it came back. */
function answered(ctx: ServerContext, key: string, field: string): unknown {
  const view = inputResponse(ctx.mcpReq.inputResponses, key);
  return view.kind === 'elicit' && view.action === 'accept' ? view.content?.[field] : undefined;
}

const sample = (prompt: string, maxTokens: number): InputRequest =>
  inputRequired.createMessage({
    messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
    maxTokens,
  });

function samplingText(ctx: ServerContext, key: string): string | undefined {
  const view = inputResponse(ctx.mcpReq.inputResponses, key);
  if (view.kind !== 'sampling') return undefined;
  const content = view.result.content as { type?: string; text?: unknown };
  return typeof content?.text === 'string' ? content.text : undefined;
}

function rootCount(ctx: ServerContext, key: string): number | undefined {
  const view = inputResponse(ctx.mcpReq.inputResponses, key);
  return view.kind === 'roots' ? view.roots.length : undefined;
}

// Long because it registers the conformance suite's input-required tools, one after another, over
// shared helpers.
export function registerInputRequiredTools(server: McpServer, state: ConformanceState): void {
  const seal = (payload: Record<string, unknown>) => state.codec.mint({ ...payload, nonce: randomUUID() });
  const stateOf = (ctx: ServerContext) => ctx.mcpReq.requestState<Record<string, unknown>>();
  const tool = (name: string, description: string, run: (ctx: ServerContext) => unknown) =>
    server.registerTool(name, { description }, run as never);

  tool(
    'test_input_required_result_elicitation',
    'MRTR: returns InputRequiredResult with elicitation request',
    async (ctx) => {
      const name = answered(ctx, 'user_name', 'name');
      if (typeof name === 'string') return text(`Hello, ${name}!`);
      return inputRequired({ inputRequests: { user_name: ask('What is your name?', 'name') } });
    },
  );
  tool(
    'test_input_required_result_sampling',
    'MRTR: returns InputRequiredResult with sampling request',
    async (ctx) => {
      const reply = samplingText(ctx, 'sample_request');
      if (reply !== undefined) return text(`Sampling result: ${reply}`);
      return inputRequired({
        inputRequests: { sample_request: sample('What is the capital of France?', 100) },
      });
    },
  );
  tool(
    'test_input_required_result_list_roots',
    'MRTR: returns InputRequiredResult with roots/list request',
    async (ctx) => {
      const count = rootCount(ctx, 'roots_request');
      if (count !== undefined) return text(`Found ${count} root(s)`);
      return inputRequired({ inputRequests: { roots_request: inputRequired.listRoots() } });
    },
  );
  tool(
    'test_input_required_result_request_state',
    'MRTR: returns InputRequiredResult with requestState',
    async (ctx) => {
      if (stateOf(ctx)?.kind === 'request-state' && answered(ctx, 'confirm', 'ok') === true)
        return text('state-ok: requestState validated');
      return inputRequired({
        inputRequests: { confirm: ask('Please confirm', 'ok', 'boolean') },
        requestState: await seal({ kind: 'request-state' }),
      });
    },
  );
  tool(
    'test_input_required_result_multiple_inputs',
    'MRTR: returns InputRequiredResult with multiple input requests',
    async (ctx) => {
      const name = answered(ctx, 'user_name', 'name');
      const greeting = samplingText(ctx, 'greeting');
      const roots = rootCount(ctx, 'client_roots');
      if (stateOf(ctx)?.kind === 'multiple-inputs' && typeof name === 'string' && roots !== undefined)
        return text(`Name: ${name}; Greeting: ${greeting ?? 'Hello there!'}; Roots: ${roots}`);
      return inputRequired({
        inputRequests: {
          user_name: ask('What is your name?', 'name'),
          greeting: sample('Generate a greeting', 50),
          client_roots: inputRequired.listRoots(),
        },
        requestState: await seal({ kind: 'multiple-inputs' }),
      });
    },
  );
  tool(
    'test_input_required_result_multi_round',
    'MRTR: multi-round InputRequiredResult workflow',
    async (ctx) => {
      const previous = stateOf(ctx);
      const name = answered(ctx, 'step1', 'name');
      if (previous?.round === 1 && typeof name === 'string')
        return inputRequired({
          inputRequests: { step2: ask('Step 2: What is your favorite color?', 'color') },
          requestState: await seal({ round: 2, name }),
        });
      const color = answered(ctx, 'step2', 'color');
      if (previous?.round === 2 && typeof color === 'string')
        return text(`Multi-round complete for ${String(previous.name)} who likes ${color}`);
      return inputRequired({
        inputRequests: { step1: ask('Step 1: What is your name?', 'name') },
        requestState: await seal({ round: 1 }),
      });
    },
  );
  tool(
    'test_input_required_result_tampered_state',
    'MRTR: HMAC-signed requestState integrity test',
    async (ctx) => {
      if (
        stateOf(ctx)?.kind === 'tamper-test' &&
        inputResponse(ctx.mcpReq.inputResponses, 'confirm').kind !== 'missing'
      )
        return text('integrity-ok: state verified');
      return inputRequired({
        inputRequests: { confirm: ask('Please confirm', 'ok', 'boolean') },
        requestState: await seal({ kind: 'tamper-test' }),
      });
    },
  );
  tool(
    'test_input_required_result_capabilities',
    'MRTR: respects client capabilities in inputRequests',
    async (ctx) => {
      const responses = Object.keys(ctx.mcpReq.inputResponses ?? {});
      if (responses.length > 0) return text(`capabilities-ok: received ${responses.join(',')}`);
      const capabilities = clientCapabilities(ctx, server);
      const requests: Record<string, InputRequest> = {};
      if (capabilities.elicitation) requests.elicit_input = ask('Elicitation input', 'value');
      if (capabilities.sampling) requests.sample_input = sample('Sample request', 50);
      if (Object.keys(requests).length === 0) return text('No supported capabilities declared');
      return inputRequired({
        inputRequests: requests,
        requestState: await seal({ kind: 'capabilities-test' }),
      });
    },
  );
  tool('test_streaming_elicitation', 'Diagnostic tool validating response progress streams', async (ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    if (token !== undefined)
      await ctx.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress: 50, total: 100 },
      });
    return text('Streaming complete');
  });
  tool('test_logging_tool', 'Diagnostic logging validator tool', async (ctx) => {
    // ctx.mcpReq.log drops the message unless the request asked for this level (2026: _meta logLevel).
    await ctx.mcpReq.log('info', 'Diagnostic trace logging activated');
    return text('Logging evaluated');
  });
  tool('test_trigger_tool_change', 'Announces that the tool list changed', () => {
    state.onListChanged?.('tools');
    return text('Mutation triggered');
  });
  tool('test_trigger_prompt_change', 'Announces that the prompt list changed', () => {
    state.onListChanged?.('prompts');
    return text('Mutation triggered');
  });
}
