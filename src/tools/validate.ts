import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';

/** One way a value fails its JSON Schema: where, and what is wrong. */
export interface SchemaProblem {
  /** JSON pointer of the offending value (`/count`), empty for the whole object. */
  readonly path: string;
  readonly message: string;
}

/** Whether a value matched a JSON Schema: yes, no (with the problems), or unchecked (the schema cannot be compiled). */
export type SchemaCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly problems: readonly SchemaProblem[] }
  | { readonly ok: 'unchecked'; readonly reason: string };

type AjvClass = new (
  options: object,
) => {
  compile(schema: object): ValidateFunction;
};

/**
 * ajv's two engines, required from the installed package on the first schema
 * rather than bundled and imported with the library: `import … from 'mcpx'`
 * would otherwise load and evaluate ajv's ~90 modules for a program that never
 * validates a tool's arguments (as `client/sdk-shims.ts` does for the SDK's
 * own copy). Synchronous, since validation is.
 */
function ajvClass(dialect: 'draft-07' | '2020-12'): AjvClass {
  // Not `require` by name: the bundler would try to resolve it at build time.
  const load = createRequire(import.meta.url);
  const loaded = load(dialect === 'draft-07' ? 'ajv' : 'ajv/dist/2020') as AjvClass | { default: AjvClass };
  // Ajv's CommonJS export is the class, with itself as `default` too.
  return 'default' in loaded ? loaded.default : loaded;
}

const options = { allErrors: true, strict: false, validateFormats: false };
const engines = new Map<'draft-07' | '2020-12', InstanceType<AjvClass>>();

function engine(dialect: 'draft-07' | '2020-12'): InstanceType<AjvClass> {
  let ajv = engines.get(dialect);
  if (!ajv) {
    ajv = new (ajvClass(dialect))(options);
    engines.set(dialect, ajv);
  }
  return ajv;
}
const compiled = new WeakMap<object, ValidateFunction | { error: string }>();

function validatorFor(schema: object): ValidateFunction | { error: string } {
  const cached = compiled.get(schema);
  if (cached) return cached;
  const dialect = String((schema as { $schema?: unknown }).$schema ?? '');
  const older = /draft-0[4-7]/.test(dialect);
  let result: ValidateFunction | { error: string };
  try {
    // JSON Schema 2020-12 is MCP's default dialect; draft-04/06/07 schemas are checked as draft-07.
    const ajv = engine(older ? 'draft-07' : '2020-12');
    const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
    result = ajv.compile(older ? rest : schema);
  } catch (error) {
    result = { error: error instanceof Error ? error.message : String(error) };
  }
  compiled.set(schema, result);
  return result;
}

function describe(error: ErrorObject): SchemaProblem {
  const path = error.instancePath;
  switch (error.keyword) {
    case 'required':
      return {
        path,
        message: `missing required property '${(error.params as { missingProperty: string }).missingProperty}'`,
      };
    case 'additionalProperties':
      return {
        path,
        message: `unknown property '${(error.params as { additionalProperty: string }).additionalProperty}'`,
      };
    case 'enum':
      return {
        path,
        message: `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`,
      };
    default:
      return { path, message: error.message ?? `fails '${error.keyword}'` };
  }
}

/**
 * Check `value` against a JSON Schema (2020-12, or draft-07 when `$schema`
 * says an older draft). Every problem is listed. A schema that cannot be
 * compiled is not the caller's fault: the result is `unchecked` with why.
 */
export function checkAgainstSchema(schema: object, value: unknown): SchemaCheck {
  const validator = validatorFor(schema);
  if ('error' in validator) return { ok: 'unchecked', reason: validator.error };
  if (validator(value)) return { ok: true };
  return { ok: false, problems: (validator.errors ?? []).map(describe) };
}

/** `/count: must be integer` style lines. */
export function formatProblems(problems: readonly SchemaProblem[]): string[] {
  return problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message));
}
