import { PassThrough } from 'node:stream';
import { Terminal } from '../../src/text/index.js';

/** Keys as a terminal sends them. */
export const KEY = { up: '\x1b[A', down: '\x1b[B', enter: '\r', space: ' ', backspace: '\x7f' } as const;

/**
 * A fake terminal for @inquirer/prompts: what the prompt draws accumulates in
 * `screen`; `answer` waits until the screen shows `prompt`, then types.
 */
export class FakeTerminal {
  readonly input = new PassThrough();
  /** Like stderr, it cannot be ended: each prompt's close() would otherwise end it for the next one. */
  readonly output = Object.assign(new PassThrough(), { end: () => this.output });
  /** The same streams as the opaque terminal mcpx's prompts draw on. */
  readonly terminal = new Terminal(this);
  screen = '';
  #seen = 0;

  constructor() {
    this.output.on('data', (chunk: Buffer) => {
      this.screen += chunk.toString('utf8');
    });
  }

  /** Wait for `prompt` to appear after what earlier calls waited for, then send `keys` one by one. */
  async answer(prompt: string, ...keys: string[]): Promise<void> {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const at = this.screen.indexOf(prompt, this.#seen);
      if (at >= 0) {
        this.#seen = at + prompt.length;
        break;
      }
      if (Date.now() > deadline) throw new Error(`the terminal never showed '${prompt}':\n${this.screen}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (const key of keys) {
      this.input.write(key);
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
  }
}
