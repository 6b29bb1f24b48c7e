import {
  Client,
  type Request,
  type RequestMethod,
  type RequestOptions,
  type ResultTypeMap,
  type StandardSchemaV1,
} from '@modelcontextprotocol/client';
import { LIST_METHODS, type ListWalk, listWalkOf } from './list-bounds.js';

/** The part of the SDK's era codec (`Protocol#_wireCodec()`) a result validator reads. */
interface ResultCodec {
  validateResult(
    method: string,
    raw: unknown,
  ):
    | { ok: true; value: unknown }
    | { ok: false; reason: 'invalid'; message: string }
    | { ok: false; reason: string };
}

/**
 * The methods mcpx sends once per call (a gateway relays thousands): never sent before a
 * version is negotiated, so the negotiated era's codec is the one the SDK would pick, and
 * never the extension-reused `tasks/*`, whose era check differs with a schema.
 */
const PER_CALL_METHODS: ReadonlySet<string> = new Set(['tools/call', 'resources/read', 'prompts/get']);

const isStandardSchema = (value: unknown): value is StandardSchemaV1 =>
  typeof value === 'object' && value !== null && '~standard' in value;

/**
 * The SDK `Client`, with the result validator of each per-call method built once per era.
 *
 * Asked for a spec method without a schema, SDK 2.4.0's `request()` first probes whether the
 * method has a result schema in the era by validating `undefined` against it, which fails and
 * formats a zod error on every request, then builds a validator around the codec. The profile of
 * `mcpx serve` put that probe at ≈5% of the process. Here the probe runs once per era and
 * method, and every request hands the SDK the same validator: it checks each result with the
 * era codec's `validateResult` and reports its message, exactly as the SDK's own adapter
 * (`codecResultValidator`) does. A method the era lacks still takes the SDK's own path, so
 * its error is the SDK's.
 */
export class SdkClient extends Client {
  readonly #validators = new Map<ResultCodec, Map<string, StandardSchemaV1 | null>>();

  // The SDK's two overloads, unchanged.
  override request<M extends RequestMethod>(
    request: { method: M; params?: Record<string, unknown> },
    options?: RequestOptions,
  ): Promise<ResultTypeMap[M]>;
  override request<T extends StandardSchemaV1>(
    request: Request,
    resultSchema: T,
    options?: RequestOptions,
  ): Promise<StandardSchemaV1.InferOutput<T>>;
  override request(
    request: { method: string; params?: Record<string, unknown> },
    schemaOrOptions?: StandardSchemaV1 | RequestOptions,
    options?: RequestOptions,
  ): Promise<unknown> {
    const sdk = super.request as (...rest: unknown[]) => Promise<unknown>;
    const walk = LIST_METHODS.has(request.method) ? listWalkOf(options ?? schemaOrOptions) : undefined;
    if (walk) return this.#page(walk, request, () => sdk.call(this, request, schemaOrOptions, options));
    if (!PER_CALL_METHODS.has(request.method) || isStandardSchema(schemaOrOptions))
      return sdk.call(this, request, schemaOrOptions, options);
    const validator = this.#validator(this._wireCodec() as ResultCodec, request.method);
    if (!validator) return sdk.call(this, request, schemaOrOptions);
    return sdk.call(this, request, validator, schemaOrOptions);
  }

  /** One page of a bounded list walk (see `list-bounds.ts`). */
  async #page(
    walk: ListWalk,
    request: { method: string; params?: Record<string, unknown> },
    send: () => Promise<unknown>,
  ): Promise<unknown> {
    walk.beforePage(request.method, request.params?.cursor);
    const page = await send();
    walk.afterPage(request.method, page);
    return page;
  }

  #validator(codec: ResultCodec, method: string): StandardSchemaV1 | undefined {
    let byMethod = this.#validators.get(codec);
    if (!byMethod) {
      byMethod = new Map();
      this.#validators.set(codec, byMethod);
    }
    let validator = byMethod.get(method);
    if (validator === undefined) {
      const probe = codec.validateResult(method, undefined);
      validator = !probe.ok && probe.reason === 'not-in-era' ? null : codecValidator(codec, method);
      byMethod.set(method, validator);
    }
    return validator ?? undefined;
  }
}

/** The SDK's `codecResultValidator`, without its probe. */
function codecValidator(codec: ResultCodec, method: string): StandardSchemaV1 {
  return {
    '~standard': {
      version: 1,
      vendor: 'mcp-wire-codec',
      validate(value: unknown) {
        const outcome = codec.validateResult(method, value);
        if (outcome.ok) return { value: outcome.value };
        const message =
          outcome.reason === 'invalid' ? (outcome as { message: string }).message : `not-in-era: ${method}`;
        return { issues: [{ message }] };
      },
    },
  };
}
