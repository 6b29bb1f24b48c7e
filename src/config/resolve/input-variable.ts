import type { InputRequest } from '../types.js';

/**
 * The environment variable that stands for VS Code's `${input:<id>}`:
 * `MCPX_INPUT_` and the id in upper case, other characters as `_`
 * (`api-key` → `MCPX_INPUT_API_KEY`). Without a terminal to ask on, the
 * value is taken from it; mcpx never writes the value anywhere.
 */
export function inputVariable(id: string): string {
  return `MCPX_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * A file's `inputs` (VS Code's `[{"id", "description", "password"}]`), by
 * variable, for the inputs its servers use.
 */
export function inputRequests(value: unknown, file: string): InputRequest[] {
  const inputs = Array.isArray(value) ? value : [];
  return inputs.flatMap((input) => {
    if (input === null || typeof input !== 'object') return [];
    const { id, description, password } = input as Record<string, unknown>;
    if (typeof id !== 'string' || id === '') return [];
    return [
      {
        id,
        variable: inputVariable(id),
        ...(typeof description === 'string' ? { description } : {}),
        password: password === true,
        file,
      },
    ];
  });
}
