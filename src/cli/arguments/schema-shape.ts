/**
 * What a tool's JSON Schema says a value may be, read the way people write schemas in the wild:
 * `type` as a string or an array, `enum`/`const`, `anyOf`/`oneOf` unions, OpenAPI's
 * `nullable: true`, and local `$ref`s (`#/$defs/x`, `#/definitions/x`).
 */

/** A JSON Schema node; anything else (a boolean schema, garbage) reads as "anything". */
export type SchemaNode = Readonly<Record<string, unknown>>;

export const JSON_TYPES = ['string', 'integer', 'number', 'boolean', 'array', 'object', 'null'] as const;
export type JsonType = (typeof JSON_TYPES)[number];

/** The types and constants a schema allows; `any` when it does not say. */
export interface SchemaShape {
  readonly any: boolean;
  readonly types: ReadonlySet<JsonType>;
  /** Allowed constants (enum/const of every branch), when every branch lists them. */
  readonly values?: readonly unknown[];
  /** Each union branch, resolved, for describing it. */
  readonly branches: readonly SchemaNode[];
}

function isNode(value: unknown): value is SchemaNode {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Follows local `$ref`s (JSON pointers into `root`), at most 32 hops, and folds `allOf` into
 * one node (pydantic writes `{"allOf": [{"$ref": …}], "default": …}`); an unknown ref reads
 * as `{}`, which accepts anything.
 */
export function resolveRef(schema: unknown, root: unknown, depth = 0): SchemaNode {
  let node: unknown = schema;
  for (let hops = 0; hops < 32 && isNode(node) && typeof node.$ref === 'string'; hops++) {
    const ref = node.$ref;
    if (!ref.startsWith('#')) return {};
    let target: unknown = root;
    for (const part of ref.slice(1).split('/').filter(Boolean)) {
      const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
      target = isNode(target) ? target[key] : undefined;
    }
    // Siblings of $ref (a description, a default) still describe the value.
    const { $ref: _ref, ...siblings } = node;
    node = isNode(target) ? { ...target, ...siblings } : siblings;
  }
  if (!isNode(node)) return {};
  if (!Array.isArray(node.allOf) || depth > 8) return node;
  const { allOf, ...own } = node;
  const merged: Record<string, unknown> = {};
  const properties: Record<string, unknown> = {};
  const required: unknown[] = [];
  for (const part of [...allOf.map((member) => resolveRef(member, root, depth + 1)), own]) {
    Object.assign(merged, part);
    if (isNode(part.properties)) Object.assign(properties, part.properties);
    if (Array.isArray(part.required)) required.push(...part.required);
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.length > 0) merged.required = [...new Set(required)];
  return merged;
}

function typeOfValue(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/** The shape of `schema` (after `$ref`s), with unions flattened. */
export function shapeOf(schema: unknown, root: unknown, depth = 0): SchemaShape {
  const node = resolveRef(schema, root);
  const types = new Set<JsonType>();
  let values: unknown[] | undefined;
  let any = false;
  const branches: SchemaNode[] = [];
  const union = [node.anyOf, node.oneOf].find(Array.isArray) as unknown[] | undefined;
  if (union && depth < 8) {
    let everyBranchListsValues = true;
    const collected: unknown[] = [];
    for (const branch of union) {
      const shape = shapeOf(branch, root, depth + 1);
      if (shape.any) any = true;
      for (const t of shape.types) types.add(t);
      if (shape.values) collected.push(...shape.values);
      else everyBranchListsValues = false;
      branches.push(...(shape.branches.length > 0 ? shape.branches : [resolveRef(branch, root)]));
    }
    if (everyBranchListsValues) values = collected;
  } else {
    branches.push(node);
    const declared = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
    for (const t of declared) if ((JSON_TYPES as readonly unknown[]).includes(t)) types.add(t as JsonType);
    if (Array.isArray(node.enum)) values = [...node.enum];
    else if ('const' in node) values = [node.const];
    if (values && declared.length === 0) for (const v of values) types.add(typeOfValue(v));
    if (types.size === 0 && !values) {
      // Properties or items imply the type even where `type` was left out.
      if (isNode(node.properties)) types.add('object');
      else if (node.items !== undefined) types.add('array');
      else any = true;
    }
  }
  if (node.nullable === true) {
    types.add('null');
    if (values) values = [...values, null];
  }
  // An integer is a number: a schema saying `number` takes `3` too.
  return { any, types, ...(values ? { values } : {}), branches };
}
