import { errorToJson, type McpxError } from '../errors/index.js';
import { toJson } from './output/json.js';

/**
 * `--json`'s stderr: exactly one JSON object, written once when the command
 * ends (a long-running one, `serve` or `shell`, when it stops):
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
  readonly #target: { write(chunk: string): unknown };
  readonly #errors: McpxError[] = [];
  readonly #warnings: string[] = [];
  #partial = '';
  #written = false;

  constructor(target: { write(chunk: string): unknown }) {
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
    this.#errors.push(error);
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
    if (text) this.#warnings.push(text);
  }
}
