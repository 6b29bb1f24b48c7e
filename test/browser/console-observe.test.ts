/**
 * The console's connect waterfall and keep-alive daemon sections, in Debian's chromium: each
 * server's connect drawn as bars from its spans (the ones `mcpx doctor --trace` shows), redrawn
 * when the server reconnects; the daemon for the config with its pid, held servers and sessions,
 * or a line saying none runs.
 */

import { dirname } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, testServerPath } from '../helpers/cli.js';
import { launchChromium, type RunningConsolePage, startConsole } from '../helpers/console.js';

let browser: Browser | undefined;
let running: RunningConsolePage | undefined;
let stopDaemon: (() => Promise<unknown>) | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await stopDaemon?.();
  stopDaemon = undefined;
  await running?.close();
  running = undefined;
});

async function openPage(mcpServers: Record<string, unknown>): Promise<Page> {
  running = await startConsole(mcpServers);
  browser = await launchChromium();
  const page = await browser.newPage();
  expect((await page.goto(running.url))?.status()).toBe(200);
  return page;
}

/** The waterfall's rows for `server`: span name and its bar's left and width (percent). */
function rows(page: Page, server: string) {
  return page.locator(`#waterfalls .waterfall[data-server="${server}"] .wf-row`).evaluateAll((nodes) =>
    nodes.map((row) => {
      // Set through the CSSOM (the page's CSP allows no inline style markup); read back as the attribute.
      const style = row.querySelector('.wf-bar')?.getAttribute('style') ?? '';
      const percent = (property: string) =>
        Number.parseFloat(new RegExp(`${property}: ([0-9.]+)%`).exec(style)?.[1] ?? 'NaN');
      return {
        name: row.querySelector('.wf-name')?.textContent,
        left: percent('left'),
        width: percent('width'),
      };
    }),
  );
}

async function callEcho(page: Page, message: string): Promise<void> {
  const echo = page.locator('details[data-tool="test.echo"]');
  if ((await echo.getAttribute('open')) === null) await echo.locator('summary').click({ timeout: 15_000 });
  await echo.locator('input[name=message]').fill(message);
  await echo.locator('button[type=submit]').click();
}

describe('the console shows how each server connected', () => {
  it('draws the connect as bars, span by span, and draws it again on a reconnect', async () => {
    const page = await openPage({
      test: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_FAULT: 'crash-mid-call' } },
    });
    await expect
      .poll(async () => (await rows(page, 'test')).map((r) => r.name), { timeout: 15_000 })
      .toEqual([
        'connect test',
        'spawn',
        'handshake',
        expect.stringMatching(/^(server\/discover|initialize)$/),
        'tools/list',
      ]);
    const first = await rows(page, 'test');
    for (const row of first) {
      expect(row.width).toBeGreaterThan(0);
      expect(row.left + row.width).toBeLessThanOrEqual(100.5);
    }
    const spawn = first.find((r) => r.name === 'spawn');
    const list = first.find((r) => r.name === 'tools/list');
    // The listing comes after the connect: its bar starts right of the spawn's.
    expect(list?.left).toBeGreaterThan(spawn?.left ?? 100);
    const block = page.locator('#waterfalls .waterfall[data-server="test"]');
    const trace = await block.getAttribute('data-trace');
    expect(trace).toMatch(/^[0-9a-f]{32}$/);
    // The server dies in the call; the next call brings it back: a new connect, drawn anew.
    await callEcho(page, 'first');
    await expect
      .poll(() => page.locator('#servers tr[data-server="test"] td').nth(1).textContent(), {
        timeout: 15_000,
      })
      .toBe('error');
    await callEcho(page, 'second');
    await expect.poll(() => block.getAttribute('data-trace'), { timeout: 15_000 }).not.toBe(trace);
    expect((await rows(page, 'test')).map((r) => r.name)).toContain('spawn');
    // The calls list, drawn item by item as calls come and settle: newest first, each once.
    await expect
      .poll(() =>
        page.locator('#calls li').evaluateAll((items) => items.map((li) => li.getAttribute('data-call'))),
      )
      .toEqual(['2', '1']);
  });

  it('redraws a call in its place when it settles, newest first', async () => {
    const page = await openPage({ test: { command: process.execPath, args: [testServerPath] } });
    const slow = page.locator('details[data-tool="test.slow_operation"]');
    await slow.locator('summary').click({ timeout: 15_000 });
    await slow.locator('input[name=steps]').fill('3');
    await slow.locator('input[name=delay_ms]').fill('1000');
    await slow.locator('button[type=submit]').click();
    const first = page.locator('#calls li[data-call="1"] > span');
    await expect.poll(() => first.textContent(), { timeout: 15_000 }).toBe(' running');
    await callEcho(page, 'meanwhile');
    await expect
      .poll(() => page.locator('#calls li[data-call="2"] > span').textContent())
      .toMatch(/^ done, \d+ ms$/);
    await expect.poll(() => first.textContent(), { timeout: 15_000 }).toMatch(/^ done, \d+ ms$/);
    expect(
      await page.locator('#calls li').evaluateAll((items) => items.map((li) => li.getAttribute('data-call'))),
    ).toEqual(['2', '1']);
    expect(await page.locator('#calls li[data-call="1"] .result pre').count()).toBeGreaterThan(0);
  });

  it('says when no keep-alive daemon runs', async () => {
    const page = await openPage({ test: { command: process.execPath, args: [testServerPath] } });
    await expect
      .poll(() => page.locator('#daemon').textContent(), { timeout: 15_000 })
      .toBe('no keep-alive daemon runs for this config (mcpx daemon start)');
  });

  it('shows the daemon holding a keep_alive server, with the console among its sessions', async () => {
    const page = await openPage({
      held: { command: process.execPath, args: [testServerPath], keep_alive: true },
    });
    const console = running as RunningConsolePage;
    stopDaemon = () =>
      runCli(['--config', console.configFile, 'daemon', 'stop'], {
        cwd: dirname(console.configFile),
        home: console.home,
      });
    // The console's host reached the held server through the daemon it started.
    const row = page.locator('#servers tr[data-server="held"]');
    await expect.poll(() => row.locator('td').nth(1).textContent(), { timeout: 30_000 }).toBe('ready');
    // Its connect is drawn too, as the link to the daemon it is.
    await expect
      .poll(() => page.locator('#waterfalls .waterfall[data-server="held"] h3').textContent(), {
        timeout: 15_000,
      })
      .toMatch(/^held \([0-9.]+ ms, through the keep-alive daemon\)$/);
    const summary = page.locator('#daemon .daemon-summary');
    await expect.poll(() => summary.textContent(), { timeout: 15_000 }).toMatch(/^running: pid \d+, up \d+s/);
    const held = page.locator('#daemon tr[data-server="held"] td');
    await expect.poll(() => held.nth(1).textContent(), { timeout: 15_000 }).toBe('ready');
    expect(await held.nth(4).textContent()).toMatch(/mcpx console/);
    const status = await runCli(['--config', console.configFile, 'daemon', 'status', '--json'], {
      cwd: dirname(console.configFile),
      home: console.home,
    });
    const pid = (JSON.parse(status.stdout) as { pid: number }).pid;
    expect(await summary.textContent()).toContain(`pid ${pid},`);
  });
});
