import { propertyKey } from './identifiers.js';
import { docComment, stringLiteral } from './source-text.js';

type Schema = Record<string, unknown>;

/** How one schema is turned into a type: the document its `$ref`s point into, and where we are. */
interface TypeContext {
  /** The tool's whole input or output schema: `#/…` refs resolve in it. */
  readonly root: unknown;
  /** The refs being expanded now: one met again is a cycle, typed `unknown`. */
  readonly expanding: readonly string[];
  readonly indent: string;
}

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON value as a literal type (enum members, `const`). */
function literalType(value: unknown): string {
  if (typeof value === 'string') return stringLiteral(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'number';
  if (typeof value === 'boolean' || value === null) return String(value);
  // An object or array member: no literal type says it exactly.
  return 'unknown';
}

function union(members: readonly string[]): string {
  const unique = [...new Set(members)];
  if (unique.includes('unknown')) return 'unknown';
  if (unique.length === 0) return 'never';
  return unique.length === 1 ? (unique[0] as string) : unique.map(parenthesised).join(' | ');
}

const parenthesised = (type: string): string =>
  /^[A-Za-z0-9_."\\[\]<>]+$/.test(type) || type.startsWith('{') || type.startsWith('Array<')
    ? type
    : `(${type})`;

/** A JSON pointer's target inside `root` (`#/$defs/Name`, `#/definitions/Name`, `#`). */
function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchema(at) || !Object.hasOwn(at, key)) return undefined;
    at = at[key];
  }
  return at;
}

/**
 * The TypeScript type of a JSON Schema (draft-07 and 2020-12 as tools publish them): objects
 * with their optional and required properties (descriptions as doc comments, keys quoted where
 * needed), arrays and tuples, enums and `const`, `anyOf`/`oneOf` as unions, `allOf` as an
 * intersection, type arrays, OpenAPI's `nullable`, and local `$ref`s expanded in place (a
 * cycle or a ref outside the document is `unknown`). What it cannot say exactly it widens,
 * never narrows: a value the schema accepts always type-checks.
 */
export function schemaType(schema: unknown, root: unknown = schema, indent = ''): string {
  return typeOf(schema, { root, expanding: [], indent });
}

function typeOf(schema: unknown, context: TypeContext): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  if (!isSchema(schema)) return 'unknown';
  const type = baseType(schema, context);
  return schema.nullable === true ? union([type, 'null']) : type;
}

/** Long because each keyword a schema may combine is one branch, in the order they narrow. */
function baseType(schema: Schema, context: TypeContext): string {
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref;
    if (context.expanding.includes(ref)) return 'unknown';
    const target = resolvePointer(context.root, ref);
    if (target === undefined) return 'unknown';
    const referred = typeOf(target, { ...context, expanding: [...context.expanding, ref] });
    // Keywords beside a $ref (2020-12) narrow it; an object's own shape is kept as an intersection.
    const { $ref: _ref, description: _d, title: _t, ...rest } = schema;
    return Object.keys(rest).length === 0 ? referred : intersection([referred, typeOf(rest, context)]);
  }
  if (Object.hasOwn(schema, 'const')) return literalType(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literalType));
  const variants = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
      ? schema.oneOf
      : undefined;
  if (variants) {
    const { anyOf: _a, oneOf: _o, ...shared } = schema;
    const alternatives = union(variants.map((v) => typeOf(v, context)));
    return hasShape(shared) ? intersection([alternatives, typeOf(shared, context)]) : alternatives;
  }
  if (Array.isArray(schema.allOf)) {
    const { allOf: _a, ...shared } = schema;
    const parts = schema.allOf.map((s) => typeOf(s, context));
    return intersection(hasShape(shared) ? [...parts, typeOf(shared, context)] : parts);
  }
  if (Array.isArray(schema.type)) {
    return union(
      schema.type.map((t) => (typeof t === 'string' ? typeOf({ ...schema, type: t }, context) : 'unknown')),
    );
  }
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return arrayType(schema, context);
    case 'object':
      return objectType(schema, context);
    case undefined:
      if (isSchema(schema.properties) || schema.additionalProperties !== undefined)
        return objectType(schema, context);
      if (schema.items !== undefined || Array.isArray(schema.prefixItems)) return arrayType(schema, context);
      return 'unknown';
    default:
      return 'unknown';
  }
}

/** Whether what is left beside a combinator still says something about the value's shape. */
function hasShape(schema: Schema): boolean {
  return schema.type !== undefined || isSchema(schema.properties);
}

function intersection(parts: readonly string[]): string {
  const kept = [...new Set(parts)].filter((p) => p !== 'unknown');
  if (kept.length === 0) return 'unknown';
  return kept.length === 1 ? (kept[0] as string) : kept.map(parenthesised).join(' & ');
}

function arrayType(schema: Schema, context: TypeContext): string {
  // 2020-12 tuples are `prefixItems`; draft-07's are `items` as an array.
  const tuple = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : undefined;
  if (tuple) {
    const rest = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems;
    const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
    const members = tuple.map((item, i) => `${typeOf(item, context)}${i < min ? '' : '?'}`);
    if (rest !== false) members.push(`...${parenthesisedArrayMember(typeOf(rest, context))}[]`);
    return `[${members.join(', ')}]`;
  }
  return `Array<${typeOf(schema.items, context)}>`;
}

const parenthesisedArrayMember = (type: string): string =>
  /^[A-Za-z0-9_]+$/.test(type) ? type : `(${type})`;

function objectType(schema: Schema, context: TypeContext): string {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : [],
  );
  const inner = `${context.indent}  `;
  const lines: string[] = [];
  for (const [key, property] of Object.entries(properties)) {
    const doc = isSchema(property) ? propertyDoc(property) : [];
    const type = typeOf(property, { ...context, indent: inner });
    lines.push(
      `${docComment(doc, inner)}${inner}${propertyKey(key, stringLiteral)}${required.has(key) ? '' : '?'}: ${type};`,
    );
  }
  // Names the schema requires but does not describe are still required, of any type.
  for (const key of required) {
    if (!Object.hasOwn(properties, key)) lines.push(`${inner}${propertyKey(key, stringLiteral)}: unknown;`);
  }
  const extra = schema.additionalProperties;
  if (lines.length === 0 && extra !== false) {
    // No named property: a map, typed by additionalProperties when it says.
    lines.push(
      `${inner}[key: string]: ${isSchema(extra) ? typeOf(extra, { ...context, indent: inner }) : 'unknown'};`,
    );
  }
  if (lines.length === 0) return 'Record<string, never>';
  return `{\n${lines.join('\n')}\n${context.indent}}`;
}

/** What a property's doc comment says: its description, its default and its bounds. */
function propertyDoc(property: Schema): (string | undefined)[] {
  const said = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const doc = [said(property.description) ?? said(property.title)];
  if (Object.hasOwn(property, 'default')) doc.push(`@defaultValue ${JSON.stringify(property.default)}`);
  return doc;
}
