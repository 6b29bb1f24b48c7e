/**
 * From the terminal to the page: `mcpx call --open` of a tool with an MCP App prints a link and
 * opens it (here with a stand-in for `xdg-open` that records the URL); chromium at that link
 * finds the App rendered and handed the call's input (`ui/notifications/tool-input`) and the
 * result the terminal showed (`ui/notifications/tool-result`), from the console that holds the
 * call — the tool is not called again.
 */

import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Frame } from 'playwright-core';
import { afterEach, expect, it } from 'vitest';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { launchChromium } from '../helpers/console.js';
import { linkConsolePids, waitForExit } from '../helpers/processes.js';

let browser: Browser | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await browser?.close();
  browser = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('opens the App of mcpx call --open with that call’s input and result', async () => {
  const dir = await tempDir('mcpx-call-link-');
  cleanups.push(() => dir.remove());
  const home = join(dir.path, 'home');
  const config = join(dir.path, 'mcp.json');
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        test: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_APPS: '1' } },
      },
    }),
  );
  // The browser opener mcpx runs, recording what it was asked to open.
  const bin = join(dir.path, 'bin');
  await mkdir(bin);
  const opened = join(dir.path, 'opened.txt');
  await writeFile(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
  await chmod(join(bin, 'xdg-open'), 0o755);
  cleanups.push(async () => {
    const pids = linkConsolePids(join(home, '.mcpx'));
    for (const pid of pids) process.kill(pid, 'SIGTERM');
    for (const pid of pids) await waitForExit(pid, 10_000);
  });

  const run = await runCli(['--config', config, 'call', 'test.show_dashboard', 'title=Fleet', '--open'], {
    cwd: dir.path,
    home,
    env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` },
  });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain('Fleet: 3 servers up, 0 errors; client shows apps: no');
  const link = /: open (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}&call=1)\n/.exec(run.stderr)?.[1];
  expect(link, run.stderr).toBeDefined();
  await expect.poll(() => readFile(opened, 'utf8').catch(() => '')).toBe(link);

  browser = await launchChromium();
  const page = await browser.newPage();
  expect((await page.goto(link as string))?.status()).toBe(200);
  const element = page.locator('[data-app="test ui://dashboard/view.html"] iframe');
  await expect.poll(() => element.count(), { timeout: 15_000 }).toBe(1);
  let frame: Frame | null = null;
  await expect
    .poll(
      async () => {
        frame = (await (await element.elementHandle())?.contentFrame()) ?? null;
        return frame ? await frame.locator('#result').textContent() : '';
      },
      { timeout: 15_000 },
    )
    .toBe('Fleet: 3 servers up, 0 errors; client shows apps: no');
  const app = frame as unknown as Frame;
  expect(await app.locator('#input').textContent()).toBe('{"title":"Fleet"}');
  expect(await app.locator('#status').textContent()).toBe('initialized by mcpx console');
  // The one call is the terminal's: the console made none of its own.
  expect(await page.locator('#calls li').count()).toBe(1);
  expect(await page.locator('#audit tbody tr').count()).toBe(0);
});
