/**
 * `mcpx console --no-open` looked at in a real browser: Debian's chromium, headless, driven by
 * playwright-core. The page loads only with its token; it lists the servers (state, era) and
 * their tools; a tool called from its schema-made form shows its result, and the call is in the
 * session's list; a resource read is rendered by type; a hostile server's HTML stays text and
 * runs no script. A missing chromium fails these tests (see `launchChromium`).
 */

import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot, testServerPath } from '../helpers/cli.js';
import { launchChromium, type RunningConsolePage, startConsole } from '../helpers/console.js';

const hostileServerPath = join(repoRoot, 'dist/testing/hostile-server.js');

let browser: Browser | undefined;
let running: RunningConsolePage | undefined;
afterEach(async () => {
  // The browser first: its renderers are this test's processes too.
  await browser?.close();
  browser = undefined;
  await running?.close();
  running = undefined;
});

async function openPage(mcpServers: Record<string, unknown>): Promise<Page> {
  running = await startConsole(mcpServers);
  browser = await launchChromium();
  const page = await browser.newPage();
  const answer = await page.goto(running.url);
  expect(answer?.status()).toBe(200);
  return page;
}

describe('mcpx console in chromium', () => {
  it('loads only with its token', async () => {
    running = await startConsole({ test: { command: process.execPath, args: [testServerPath] } });
    browser = await launchChromium();
    const page = await browser.newPage();
    const bare = await page.goto(`${running.origin}/`);
    expect(bare?.status()).toBe(401);
    expect(await page.locator('#servers').count()).toBe(0);
    const wrong = await page.goto(`${running.origin}/?token=${'f'.repeat(48)}`);
    expect(wrong?.status()).toBe(401);
    const right = await page.goto(running.url);
    expect(right?.status()).toBe(200);
    await expect.poll(() => page.locator('body[data-loaded=true]').count()).toBe(1);
  });

  it('lists the servers with state and era, and their tools', async () => {
    const page = await openPage({ test: { command: process.execPath, args: [testServerPath] } });
    const row = page.locator('#servers tr[data-server="test"]');
    await expect.poll(() => row.locator('td').nth(1).textContent(), { timeout: 15_000 }).toBe('ready');
    expect(await row.locator('td').nth(2).textContent()).toMatch(/^(modern|legacy) \(\d{4}-\d{2}-\d{2}\)$/);
    expect(await row.locator('td').nth(3).textContent()).toBe('stdio');
    await expect.poll(() => page.locator('details[data-tool="test.echo"]').count()).toBe(1);
    expect(await page.locator('details[data-tool="test.add"] .description').textContent()).toContain(
      'Add two numbers',
    );
  });

  it("shows a server that cannot start with its error, and a tool's MCP App named as text", async () => {
    const page = await openPage({
      test: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_APPS: '1' } },
      missing: { command: 'mcpx-no-such-command-anywhere' },
    });
    const missing = page.locator('#servers tr[data-server="missing"]');
    await expect.poll(() => missing.locator('td').nth(1).textContent(), { timeout: 15_000 }).toBe('error');
    expect(await missing.locator('td').nth(4).textContent()).toMatch(
      /^COMMAND_NOT_FOUND: .*mcpx-no-such-command-anywhere/,
    );
    const app = page.locator('details[data-tool="test.show_dashboard"] p.app');
    await expect.poll(() => app.textContent()).toBe('has an MCP App: ui://dashboard/view.html Open app');
  });

  it('calls a tool from its form and shows the result, and the call in the session list', async () => {
    const page = await openPage({ test: { command: process.execPath, args: [testServerPath] } });
    const echo = page.locator('details[data-tool="test.echo"]');
    await echo.locator('summary').click({ timeout: 15_000 });
    await echo.locator('input[name="message"]').fill('hello from the page');
    await echo.getByRole('button', { name: 'Call' }).click();
    await expect.poll(() => echo.locator('.tool-result pre.text').textContent()).toBe('hello from the page');

    // Numbers are typed by the schema: the sum comes back, with its structured content.
    const add = page.locator('details[data-tool="test.add"]');
    await add.locator('summary').click();
    await add.locator('input[name="a"]').fill('2');
    await add.locator('input[name="b"]').fill('3.5');
    await add.getByRole('button', { name: 'Call' }).click();
    await expect.poll(() => add.locator('.tool-result pre.text').textContent()).toBe('5.5');
    expect(JSON.parse((await add.locator('.tool-result pre.structured').textContent()) ?? '')).toEqual({
      sum: 5.5,
    });

    // Both calls are in the session's list, newest first, told to the page live.
    const calls = page.locator('#calls li');
    await expect.poll(() => calls.count()).toBe(2);
    expect(await calls.nth(0).locator('strong').textContent()).toBe('test.add');
    expect(await calls.nth(1).locator('strong').textContent()).toBe('test.echo');
    expect(await calls.nth(1).locator('pre.text').textContent()).toBe('hello from the page');

    // The host's audit trail recorded both, as the person's own calls, as the audit file gets them.
    const audit = page.locator('#audit tbody tr');
    await expect.poll(() => audit.count()).toBe(2);
    const cells = await audit.nth(1).locator('td').allTextContents();
    expect(cells.slice(2, 5)).toEqual(['test.echo', 'allowed by person', 'ok']);
    expect(cells[6]).toBe('message');
  });

  it('reads a resource and renders JSON pretty-printed', async () => {
    const page = await openPage({ test: { command: process.execPath, args: [testServerPath] } });
    await expect
      .poll(() => page.locator('details[data-tool="test.echo"]').count(), { timeout: 15_000 })
      .toBe(1);
    await page.locator('#load-resources').click();
    const resource = page.locator('[data-resource="test test://config.json"]');
    await resource.getByRole('button', { name: 'Read' }).click();
    const shown = page.locator('#resource-view pre.json');
    await expect.poll(() => shown.count()).toBe(1);
    const text = (await shown.textContent()) ?? '';
    expect(text).toContain('\n  ');
    expect(() => JSON.parse(text)).not.toThrow();
    await page.locator('#load-prompts').click();
    await expect.poll(() => page.locator('[data-prompt="test.greeting"]').count()).toBe(1);
  });

  it('shows an image result as a picture, and binary content of another type only as its size', async () => {
    const page = await openPage({
      test: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_MEDIA: '1' } },
    });
    const media = page.locator('details[data-tool="test.media"]');
    await media.locator('summary').click({ timeout: 15_000 });
    await media.getByRole('button', { name: 'Call' }).click();
    const image = media.locator('.tool-result img.content');
    await expect.poll(() => image.count()).toBe(1);
    expect(await image.getAttribute('src')).toMatch(/^data:image\/png;base64,iVBOR/);
    await expect
      .poll(() => image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBe(1);
    // The blob whose MIME type is a path with escapes: not an image, shown as its size, never as a picture.
    expect(await media.locator('.tool-result').textContent()).toContain('256 bytes (not shown)');
  });

  it("shows a hostile server's HTML as text and runs none of its script", async () => {
    const page = await openPage({
      hostile: { command: process.execPath, args: [hostileServerPath], env: { MCPX_HOSTILE_MARKUP: '1' } },
    });
    const poison = page.locator('details[data-tool="hostile.poison"]');
    await expect.poll(() => poison.count(), { timeout: 15_000 }).toBe(1);
    const description = (await poison.locator('.description').textContent()) ?? '';
    expect(description).toContain('<img src=x onerror="window.__mcpxPwned=1">');
    expect(description).toContain('<script>window.__mcpxPwned=2</script>');
    // Its form's field is named by the server: still an attribute, not markup.
    await poison.locator('summary').click();
    expect(await page.locator('#tools img, #tools script, #tools b').count()).toBe(0);
    // The page's own three scripts (the console's, its waterfalls and daemon, its Apps host), and nothing the server sent ran.
    expect(await page.locator('script').count()).toBe(3);
    expect(await page.evaluate(() => (globalThis as { __mcpxPwned?: number }).__mcpxPwned)).toBeUndefined();

    // A result carrying the markup is text too.
    await poison.getByRole('button', { name: 'Call' }).click();
    await expect.poll(() => page.locator('#calls li').count()).toBe(1);
    await expect.poll(() => poison.locator('.tool-result').textContent()).not.toBe('calling…');
    expect(
      await page.locator('#calls img, #calls script, .tool-result img, .tool-result script').count(),
    ).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __mcpxPwned?: number }).__mcpxPwned)).toBeUndefined();
  });
});
