/**
 * An OTLP/HTTP trace receiver on 127.0.0.1:0, as a collector would be: it accepts what
 * OpenTelemetry's OTLP/HTTP exporter sends (`POST /v1/traces`, JSON encoding) and keeps
 * every span with the `service.name` of the resource that sent it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
  readonly durationMs: number;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:PORT`: the value of OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** Resolves once `predicate` holds for the spans received (polls; rejects after `timeoutMs`). */
  waitFor(predicate: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: OtlpAttribute[];
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

const plain = (value: OtlpValue): unknown =>
  value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;

const attributesOf = (list: OtlpAttribute[] = []): Record<string, unknown> =>
  Object.fromEntries(list.map((a) => [a.key, plain(a.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = receiving((request, text, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/traces') {
      response.writeHead(404).end();
      return;
    }
    if (!String(request.headers['content-type']).includes('json')) {
      response.writeHead(415).end();
      return;
    }
    const body = JSON.parse(text) as OtlpExport;
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
      for (const scope of resourceSpans.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
            durationMs: Number(BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)) / 1e6,
          });
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  return {
    endpoint: await listening(server),
    spans,
    async waitFor(predicate, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > deadline)
          throw new Error(
            `spans not received in time; got:\n${spans.map((s) => `${s.service} ${s.name}`).join('\n')}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An OTLP/HTTP metrics receiver on 127.0.0.1:0: the body of every `POST /v1/metrics`, as sent. */
export interface OtlpMetricsReceiver {
  /** `http://127.0.0.1:PORT`: the value of OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly endpoint: string;
  readonly bodies: string[];
  close(): Promise<void>;
}

export async function startOtlpMetricsReceiver(): Promise<OtlpMetricsReceiver> {
  const bodies: string[] = [];
  const server = receiving((request, text, response) => {
    if (request.url === '/v1/metrics') bodies.push(text);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  return {
    endpoint: await listening(server),
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A server that hands `answer` each request with its whole body, as text. */
function receiving(
  answer: (request: IncomingMessage, body: string, response: ServerResponse) => void,
): Server {
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => answer(request, Buffer.concat(chunks).toString('utf8'), response));
  });
}

/** Listen on a free loopback port; the receiver's endpoint (OTEL_EXPORTER_OTLP_ENDPOINT). */
async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}
