/**
 * A scripted model behind the Anthropic Messages API (`POST /v1/messages`, streamed as
 * server-sent events), for running the real Claude Code CLI (`claude -p`) offline: point it
 * here with `ANTHROPIC_BASE_URL` and any `ANTHROPIC_API_KEY`. Each request is recorded and
 * answered with the next scripted reply: words, or one tool call.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One reply: words, or a call of one tool; `before` is awaited first (a model taking its time). */
export type AnthropicReply = (
  | { readonly text: string }
  | { readonly tool: string; readonly input: Record<string, unknown> }
) & { readonly before?: () => Promise<void> };

/** One request as Claude Code sent it (the parts a test reads). */
export interface AnthropicRequest {
  readonly tools?: readonly { readonly name: string }[];
  readonly messages: readonly { readonly role: string; readonly content: unknown }[];
  readonly system?: unknown;
}

export interface FakeAnthropic {
  /** `http://127.0.0.1:PORT`, for `ANTHROPIC_BASE_URL`. */
  readonly baseUrl: string;
  /** Every `POST /v1/messages` body, in order. */
  readonly requests: readonly AnthropicRequest[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Start the model on 127.0.0.1; replies past the script's end say "done". */
export async function startFakeAnthropic(script: readonly AnthropicReply[]): Promise<FakeAnthropic> {
  const requests: AnthropicRequest[] = [];
  let next = 0;
  const server = createServer(async (req, res) => {
    const url = req.url ?? '';
    const body = await readBody(req);
    if (req.method !== 'POST' || !url.startsWith('/v1/messages')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    if (url.startsWith('/v1/messages/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":1}');
      return;
    }
    const request = JSON.parse(body) as AnthropicRequest & { model?: string };
    requests.push(request);
    const n = next++;
    const reply = script[n] ?? { text: 'done' };
    await reply.before?.();
    const message = {
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      model: request.model ?? 'fake',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    const block =
      'tool' in reply
        ? {
            start: { type: 'tool_use', id: `toolu_${n}`, name: reply.tool, input: {} },
            delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.input) },
            stop: 'tool_use',
          }
        : {
            start: { type: 'text', text: '' },
            delta: { type: 'text_delta', text: reply.text },
            stop: 'end_turn',
          };
    const event = (type: string, data: Record<string, unknown>) =>
      `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(
      [
        event('message_start', { message }),
        event('content_block_start', { index: 0, content_block: block.start }),
        event('content_block_delta', { index: 0, delta: block.delta }),
        event('content_block_stop', { index: 0 }),
        event('message_delta', {
          delta: { stop_reason: block.stop, stop_sequence: null },
          usage: { output_tokens: 1 },
        }),
        event('message_stop', {}),
      ].join(''),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
