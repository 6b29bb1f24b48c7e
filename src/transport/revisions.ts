/**
 * The 2026-07-28 revision of MCP (stateless: `server/discover`, the per-request `_meta`
 * envelope), as the wire names it: what mcpx pins, probes for and accepts. The SDK keeps its
 * own constant private; its exported list holds the 2025-era revisions.
 */
export const MODERN_REVISION = '2026-07-28';
