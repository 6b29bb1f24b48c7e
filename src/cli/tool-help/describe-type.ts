import { resolveRef, type SchemaNode, shapeOf } from '../arguments/schema-shape.js';

/**
 * A schema's type as people read it: `string`, `integer | null`, `"fast" | "slow"`,
 * `string[]`, `(string | number)[]`, `object`, `any`. Local `$ref`s are followed.
 */
export function describeType(schema: unknown, root: unknown, depth = 0): string {
  const shape = shapeOf(schema, root);
  if (shape.values) {
    const values = [...new Set(shape.values.map((v) => JSON.stringify(v)))];
    return values.join(' | ');
  }
  if (shape.any) return 'any';
  const parts: string[] = [];
  for (const branch of shape.branches) {
    const node = resolveRef(branch, root);
    const declared = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
    const types = declared.length > 0 ? declared : [...shape.types];
    for (const type of types) {
      if (type === 'array' && depth < 4) {
        const items = isNode(node.items) ? describeType(node.items, root, depth + 1) : 'any';
        parts.push(items.includes(' | ') ? `(${items})[]` : `${items}[]`);
      } else if (typeof type === 'string') parts.push(type);
    }
  }
  if (shape.types.has('null') && !parts.includes('null')) parts.push('null');
  return [...new Set(parts)].join(' | ') || 'any';
}

/** The object properties a schema describes directly (not through a union), for nesting. */
export function objectProperties(
  schema: unknown,
  root: unknown,
): { properties: Record<string, unknown>; required: ReadonlySet<string> } | undefined {
  const node = resolveRef(schema, root);
  const target = isNode(node.items) && !isNode(node.properties) ? resolveRef(node.items, root) : node;
  if (!isNode(target.properties) || Object.keys(target.properties).length === 0) return undefined;
  const required = Array.isArray(target.required) ? target.required.filter((k) => typeof k === 'string') : [];
  return { properties: target.properties as Record<string, unknown>, required: new Set(required) };
}

function isNode(value: unknown): value is SchemaNode {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
