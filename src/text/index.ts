/**
 * Text a server wrote, made fit for a person: terminal controls stripped,
 * invisible or reordering characters shown, and content blocks rendered as text. Every human-facing sink (the CLI,
 * the shell, the permission prompts, the gateway's messages) goes through here,
 * so this folder sits at the bottom of the layers and imports nothing of mcpx.
 */
export { jsonText } from './json-text.js';
export { renderContent, renderContentBlock } from './render-content.js';
export { forModel, forTerminal, stripTerminalControls } from './sanitize.js';
export { looksLikeToken, type MaskOptions, maskSecrets, namesSecret } from './secrets.js';
export { hasHiddenCharacters, mapHidden, revealHidden, stripHidden } from './unicode.js';
