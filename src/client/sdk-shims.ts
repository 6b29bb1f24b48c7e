/**
 * The SDK client's `_shims` entry, replaced in the bundle (rolldown.config.mjs): the same two
 * exports, but the JSON-schema validator is ajv loaded on its first schema instead of at start.
 *
 * The SDK's Node shim imports its bundled ajv provider eagerly: ~280 kB of the ~800 kB SDK chunk,
 * compiled and evaluated by every cold `mcpx call`, although only a tool with an `outputSchema`
 * (or `fromJsonSchema`) ever asks for a validator. The SDK asks synchronously, so the provider is
 * the SDK's own CommonJS build, required from the installed package (a dependency of mcpx): the
 * same class with the same dialects and formats, just not paid for by a call that never uses it.
 */
import { createRequire } from 'node:module';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/client';

/** In Node, a failed `fetch()` is never a CORS refusal (the SDK's Node shim says the same). */
export const CORS_IS_POSSIBLE = false;

type ProviderModule = { DefaultJsonSchemaValidator: new () => jsonSchemaValidator };

let provider: ProviderModule | undefined;

function loadProvider(): ProviderModule {
  // Not `require` by name: the bundler would try to resolve it at build time.
  const load = createRequire(import.meta.url);
  provider ??= load('@modelcontextprotocol/client/_shims') as ProviderModule;
  return provider;
}

/** The SDK's default validator (ajv, per-dialect engines), created on the first schema it is given. */
export class DefaultJsonSchemaValidator implements jsonSchemaValidator {
  #engine: jsonSchemaValidator | undefined;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.#engine ??= new (loadProvider().DefaultJsonSchemaValidator)();
    return this.#engine.getValidator<T>(schema);
  }
}
