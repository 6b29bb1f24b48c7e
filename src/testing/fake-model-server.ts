/**
 * A model server for tests: speaks the OpenAI Chat Completions wire format on
 * 127.0.0.1 and answers from a script, one scripted reply per request, while
 * recording every request so a test can check what the model was sent.
 *
 * As a process: `node dist/testing/fake-model-server.js --script replies.json`
 * prints its base URL (`http://127.0.0.1:PORT/v1`) on stdout.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/** One reply: words, or tool calls (`arguments` as an object or a raw string). */
export type ScriptedReply =
  | { readonly text: string }
  | {
      readonly toolCalls: readonly { readonly name: string; readonly arguments: unknown }[];
      readonly text?: string;
    }
  | { readonly status: number; readonly body?: string };

export interface FakeModelServer {
  /** `http://127.0.0.1:PORT/v1` */
  readonly baseUrl: string;
  /** Request bodies received, in order. */
  readonly requests: readonly Record<string, unknown>[];
  /** Authorization headers received, in order. */
  readonly authorizations: readonly (string | undefined)[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeModelServer(script: readonly ScriptedReply[]): Promise<FakeModelServer> {
  const requests: Record<string, unknown>[] = [];
  const authorizations: (string | undefined)[] = [];
  let next = 0;
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    requests.push(body);
    authorizations.push(req.headers.authorization);
    const reply = script[next++] ?? { text: '(the script has no more replies)' };
    if ('status' in reply) {
      res
        .writeHead(reply.status, { 'content-type': 'application/json' })
        .end(reply.body ?? '{"error":{"message":"scripted failure"}}');
      return;
    }
    const toolCalls =
      'toolCalls' in reply
        ? reply.toolCalls.map((c, i) => ({
            id: `call_${next}_${i}`,
            type: 'function',
            function: {
              name: c.name,
              arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
            },
          }))
        : undefined;
    const message = {
      role: 'assistant',
      content: reply.text ?? null,
      ...(toolCalls ? { tool_calls: toolCalls } : {}),
    };
    if (body.stream === true) {
      // The streaming wire format: the text in two deltas, each tool call whole, then [DONE].
      const chunk = (delta: unknown, finish: string | null) =>
        `data: ${JSON.stringify({ id: `chatcmpl-${next}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: String(body.model ?? 'fake'), choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: '' }, null));
      const text = reply.text ?? '';
      if (text) {
        const half = Math.ceil(text.length / 2);
        res.write(chunk({ content: text.slice(0, half) }, null));
        res.write(chunk({ content: text.slice(half) }, null));
      }
      for (const [index, call] of (toolCalls ?? []).entries()) {
        res.write(chunk({ tool_calls: [{ index, ...call }] }, null));
      }
      res.write(chunk({}, toolCalls ? 'tool_calls' : 'stop'));
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: `chatcmpl-${next}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: String(body.model ?? 'fake'),
        choices: [{ index: 0, message, finish_reason: toolCalls ? 'tool_calls' : 'stop', logprobs: null }],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    authorizations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--script');
  const script =
    at > 0 ? (JSON.parse(readFileSync(String(process.argv[at + 1]), 'utf8')) as ScriptedReply[]) : [];
  const fake = await startFakeModelServer(script);
  process.stdout.write(`${fake.baseUrl}\n`);
  process.on('SIGTERM', () => void fake.close().then(() => process.exit(0)));
}
