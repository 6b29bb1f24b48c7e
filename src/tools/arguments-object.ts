import { ErrorCode, McpxError } from '../errors/index.js';

/**
 * A model's arguments as one object: provider adapters hand over a JSON string
 * or an object; anything else is the model's mistake, told as INVALID_ARGUMENTS
 * about `name` (with `scene`, the server and tool, as error context).
 */
export function argumentsObject(
  raw: unknown,
  name: string,
  scene: { readonly server?: string; readonly tool?: string } = {},
): Record<string, unknown> {
  let value = raw ?? {};
  if (typeof value === 'string') {
    try {
      value = value.trim() === '' ? {} : JSON.parse(value);
    } catch (error) {
      throw new McpxError(
        ErrorCode.InvalidArguments,
        `the arguments for '${name}' are not valid JSON: ${(error as Error).message}`,
        { ...scene, fixes: ['send the arguments as one JSON object'] },
      );
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new McpxError(ErrorCode.InvalidArguments, `the arguments for '${name}' must be a JSON object`, {
      ...scene,
      fixes: ['send the arguments as one JSON object'],
    });
  }
  return value as Record<string, unknown>;
}
