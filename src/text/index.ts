/**
 * Text a server wrote, made fit for a person: terminal controls stripped and
 * invisible or reordering characters shown. Every human-facing sink (the CLI,
 * the shell, the permission prompts, the gateway's messages) goes through here,
 * so this folder sits at the bottom of the layers and imports nothing of mcpx.
 */
export { forModel, forTerminal, stripTerminalControls } from './sanitize.js';
export { hasHiddenCharacters, mapHidden, revealHidden, stripHidden } from './unicode.js';
