import { type SafeText, vouched } from './safe-text.js';
import { revealHidden, stripHidden } from './unicode.js';

/**
 * Strip what a terminal would execute rather than show: CSI sequences
 * (colours, cursor moves, screen clears), OSC sequences (OSC-8 hyperlinks,
 * OSC-52 clipboard writes, title changes), DCS/PM/APC strings, lone ESC, and
 * C0/C1 controls other than tab and newline. Text from a server passes through
 * here before it reaches a person's terminal.
 */
export function stripTerminalControls(text: string): string {
  return (
    text
      // OSC / DCS / SOS / PM / APC: ESC ] ... (BEL | ESC \), and their 8-bit forms
      .replace(/(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)/g, '')
      // CSI: ESC [ params intermediates final, and 8-bit CSI
      .replace(/(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]?/g, '')
      // two-character escapes (ESC c, ESC 7, ...)
      .replace(/\u001b[ -~]?/g, '')
      // remaining C0 (except \t \n) and C1 controls, DEL
      .replace(/\r\n/g, '\n')
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')
  );
}

/**
 * Server text made fit for a person's terminal: terminal controls stripped
 * and every invisible or reordering character (bidi controls, zero-width
 * characters, tags, other format characters) shown as `<U+XXXX>`, so what is
 * printed reads as what the server sent. The one sanitiser: the CLI's human
 * output takes only what it (or `say`) made; `--json` keeps the exact text
 * instead (escaped by the JSON writer). Sanitising twice changes nothing.
 *
 * @example forTerminal('safe\u202Etxt.exe\u001b[2J') // 'safe<U+202E>txt.exe'
 */
export function forTerminal(text: string): SafeText {
  return vouched(revealHidden(stripTerminalControls(text)));
}

/**
 * Server text made fit for a model's context: terminal controls stripped and
 * every invisible or reordering character removed, so a server cannot hide an
 * instruction to the model where a person reading along would not see it.
 *
 * @example forModel('Greet Ada\u200b\u{E0041}') // 'Greet Ada'
 */
export function forModel(text: string): string {
  return stripHidden(stripTerminalControls(text));
}
