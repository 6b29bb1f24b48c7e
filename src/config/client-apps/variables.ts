// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the config syntax these functions translate
/**
 * How a client app writes a reference to an environment variable:
 * - `dollar`: `${VAR}`, mcpx's own spelling (Claude Code, Gemini CLI);
 * - `env-colon`: `${env:VAR}` (VS Code, Cursor, Windsurf);
 * - `opencode`: `{env:VAR}`;
 * - `none`: the client app expands nothing, so `${VAR}` stays as written.
 */
export type VariableStyle = 'dollar' | 'env-colon' | 'opencode' | 'none';

const NAME = '[A-Za-z_][A-Za-z0-9_]*';

/** A client app's variable references in mcpx's `${VAR}` spelling. */
export function toMcpxVariables(text: string, style: VariableStyle): string {
  switch (style) {
    case 'env-colon':
      return text.replace(new RegExp(`\\$\\{env:(${NAME})\\}`, 'g'), '${$1}');
    case 'opencode':
      return text.replace(new RegExp(`(?<!\\$)\\{env:(${NAME})\\}`, 'g'), '${$1}');
    default:
      return text;
  }
}

/** mcpx's `${VAR}` references in a client app's spelling (`${VAR:-default}` has no equivalent there and stays). */
export function fromMcpxVariables(text: string, style: VariableStyle): string {
  const plain = new RegExp(`\\$\\{(${NAME})\\}`, 'g');
  switch (style) {
    case 'env-colon':
      return text.replace(plain, '${env:$1}');
    case 'opencode':
      return text.replace(plain, '{env:$1}');
    default:
      return text;
  }
}
