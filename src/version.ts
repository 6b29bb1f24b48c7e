/** mcpx's version, kept in step with package.json by a test (no JSON read at start-up). */
export const VERSION = '0.1.0';
