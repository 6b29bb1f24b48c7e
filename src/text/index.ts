/**
 * Text a server wrote, made fit for a person, and the one funnel to a terminal:
 * terminal controls stripped, invisible or reordering characters shown, content
 * blocks rendered as text, and {@link SafeText}, the only text the CLI's writers,
 * prompts and line editor take. Every human-facing sink (the CLI, the shell, the
 * permission prompts, the gateway's messages) goes through here, so this folder
 * sits at the bottom of the layers and imports nothing of mcpx.
 */
export { jsonText } from './json-text.js';
export { type LineEditor, type LineEditorOptions, openLineEditor } from './line-editor.js';
export { type Choice, checkbox, confirm, input, number, password, select, yesOrNo } from './prompts.js';
export { renderContent, renderContentBlock } from './render-content.js';
export type { SafeText } from './safe-text.js';
export { forModel, forTerminal, stripTerminalControls } from './sanitize.js';
export { redrawLine, relayed, type Said, say } from './say.js';
export { looksLikeToken, type MaskOptions, maskSecrets, namesSecret } from './secrets.js';
export { isTerminal, Terminal, type TerminalStreams } from './terminal.js';
export { hasHiddenCharacters, mapHidden, revealHidden, stripHidden } from './unicode.js';
