/**
 * Other hosts' config dialects: what mcpx hands to (and, later, reads from)
 * Claude Code and other agents.
 */
export { type ClaudeCodeServer, claudeCodeServers } from './claude-code-servers.js';
