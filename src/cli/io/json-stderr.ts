import { errorToJson, type McpxError } from '../../errors/index.js';
import type { SafeText } from '../../text/index.js';
import { toJson } from '../output/json.js';

/**
 * `--json`'s stderr: exactly one JSON object, written once when the command
 * ends (a command that runs until stopped switches to one object a line, see
 * `writeEachLine`):
 *
 * - `error`: the failure (the first, when several servers failed),
 * - `errors`: every failure, when there is more than one,
 * - `warnings`: every notice and warning the command gave, one string each,
 *
 * each present only when there is something in it; nothing at all is written
 * when there is nothing to say. Any front end or command reports through the
 * usual paths (`session.notice()`, `writeError()`, `io.stderr.write()`): with
 * --json they all land here, so no line of text ever breaks the object.
 *
 * @example
 * {"error":{"code":"SERVER_REJECTED","message":"…"},"warnings":["skipped server 'x' from …"]}
 */
export class JsonStderr {
  readonly #target: { write(chunk: SafeText): unknown };
  readonly #errors: McpxError[] = [];
  readonly #warnings: string[] = [];
  #partial = '';
  #written = false;
  #lines = false;

  constructor(target: { write(chunk: SafeText): unknown }) {
    this.#target = target;
  }

  /** Stands in for stderr: text written to it becomes warnings, one per line. */
  readonly stream = {
    write: (chunk: string): boolean => {
      this.#text(chunk);
      return true;
    },
  };

  /** A failure to report (several calls: several failures). */
  error(error: McpxError): void {
    if (this.#lines) this.#line({ error: errorToJson(error).error });
    else this.#errors.push(error);
  }

  /**
   * For a command that runs until stopped (`serve`, `read --watch`): one object
   * written at the end would hold back what a script waits for (`serve --http`
   * saying where it listens), so from now on each notice and failure is its
   * own JSON line (`{"warning": …}`, `{"error": …}`) as it happens, starting
   * with what was gathered so far.
   */
  writeEachLine(): void {
    if (this.#lines || this.#written) return;
    this.#lines = true;
    this.#written = true; // flush() has nothing left to write
    this.#flushPartial();
    for (const warning of this.#warnings.splice(0)) this.#line({ warning });
    for (const error of this.#errors.splice(0)) this.#line({ error: errorToJson(error).error });
  }

  /** The text written so far, taken out of the warnings (a usage error commander printed). */
  takeText(): string {
    this.#flushPartial();
    return this.#warnings.splice(0).join('\n');
  }

  /** Writes the one object, if there is anything to say. Later calls write nothing. */
  flush(): void {
    if (this.#written) return;
    this.#written = true;
    this.#flushPartial();
    const errors = this.#errors.map((error) => errorToJson(error).error);
    const [first] = errors;
    if (!first && this.#warnings.length === 0) return;
    this.#target.write(
      toJson(
        {
          ...(first ? { error: first } : {}),
          ...(errors.length > 1 ? { errors } : {}),
          ...(this.#warnings.length ? { warnings: this.#warnings } : {}),
        },
        0,
      ),
    );
  }

  #text(chunk: string): void {
    const lines = `${this.#partial}${chunk}`.split('\n');
    this.#partial = lines.pop() ?? '';
    for (const line of lines) this.#warn(line);
  }

  #flushPartial(): void {
    if (this.#partial) this.#warn(this.#partial);
    this.#partial = '';
  }

  #warn(line: string): void {
    // A terminal's line redraw (`\r`) has no meaning in JSON.
    const text = line.replace(/\r/g, '').trimEnd();
    if (!text) return;
    if (this.#lines) this.#line({ warning: text });
    else this.#warnings.push(text);
  }

  #line(value: object): void {
    this.#target.write(toJson(value, 0));
  }
}
