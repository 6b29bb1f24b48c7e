/** A progress bar and a server's questions sharing one terminal (see createTerminalTurns). */
import type { ElicitRequestFormParams } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createTerminalTurns } from '../../../../src/cli/context/command-features.js';
import { createProgressBar } from '../../../../src/cli/output/progress-bar.js';
import { terminalElicitation } from '../../../../src/cli/terminal/terminal-elicitation.js';
import { nodeServer } from '../../../helpers/servers.js';
import { FakeTerminal, KEY } from '../../../helpers/terminal.js';

const server = nodeServer('srv', 'unused.js');
const context = { signal: new AbortController().signal };
const form = (message: string): ElicitRequestFormParams => ({
  message,
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
});

describe('a progress bar and a question on one terminal', () => {
  it('clears the bar for a question, holds it back until answered, then draws again', async () => {
    const terminal = new FakeTerminal();
    const turns = createTerminalTurns((chunk) => terminal.output.write(chunk));
    const bar = createProgressBar(turns.draw);
    const ask = terminalElicitation(server, { terminal: terminal.terminal, hold: turns.hold });
    bar.update({ progress: 1, total: 4 });
    expect(terminal.screen).toContain('25%');
    const answered = ask.form?.(form('Who?'), context);
    await terminal.answer("Server 'srv' asks: Who?");
    // The bar's line was cleared before the question was drawn.
    expect(terminal.screen.slice(terminal.screen.indexOf('25%'))).toMatch(/^25%\r\u001b\[2K/);
    bar.update({ progress: 2, total: 4 });
    expect(terminal.screen).not.toContain('50%');
    await terminal.answer('', KEY.enter);
    await terminal.answer('name', ...'ada', KEY.enter);
    expect(await answered).toEqual({ action: 'accept', content: { name: 'ada' } });
    bar.update({ progress: 3, total: 4 });
    expect(terminal.screen).toContain('75%');
  });

  it('asks one question at a time', async () => {
    const terminal = new FakeTerminal();
    const turns = createTerminalTurns((chunk) => terminal.output.write(chunk));
    const ask = terminalElicitation(server, { terminal: terminal.terminal, hold: turns.hold });
    const first = ask.url?.(
      { mode: 'url', message: 'one', url: 'https://example.com/1', elicitationId: '1' },
      context,
    );
    const second = ask.url?.(
      { mode: 'url', message: 'two', url: 'https://example.com/2', elicitationId: '2' },
      context,
    );
    await terminal.answer('https://example.com/1');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(terminal.screen).not.toContain('https://example.com/2');
    await terminal.answer('Will you visit it?', 'y', KEY.enter);
    expect(await first).toEqual({ action: 'accept' });
    await terminal.answer('https://example.com/2');
    await terminal.answer('Will you visit it?', 'n', KEY.enter);
    expect(await second).toEqual({ action: 'decline' });
  });
});
