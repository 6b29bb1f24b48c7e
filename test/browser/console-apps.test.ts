/**
 * The console as an MCP Apps host, in chromium: the test server's App (`MCPX_TEST_APPS=1`)
 * renders in a sandboxed frame on the Apps' own origin (not the page's) through the ext-apps
 * `AppBridge`; it is initialised by the console; `show_dashboard` called from its form delivers
 * its input and result to the App; the App's own call to `refresh_dashboard` (an app-only tool) is
 * decided by the policy (its question answered on the page) and audited as the console's, naming
 * the App; closing the App tears it down. Each hostile App is contained: it cannot read the
 * page, cannot navigate the top window or open one, its forbidden script is blocked by the CSP
 * its resource declares, its call to a model-only tool is refused, and its flood is stopped.
 */

import type { Browser, Frame, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { testServerPath } from '../helpers/cli.js';
import { launchChromium, type RunningConsolePage, startConsole } from '../helpers/console.js';

let browser: Browser | undefined;
let running: RunningConsolePage | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await running?.close();
  running = undefined;
});

const appServer = {
  test: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_APPS: '1' } },
};

async function openConsole(): Promise<Page> {
  running = await startConsole(appServer);
  browser = await launchChromium();
  const page = await browser.newPage();
  expect((await page.goto(running.url))?.status()).toBe(200);
  await expect
    .poll(() => page.locator('details[data-tool="test.show_dashboard"]').count(), { timeout: 15_000 })
    .toBe(1);
  return page;
}

/** The frame of the App panel for `uri`, once it has loaded its page. */
async function appFrame(page: Page, uri: string): Promise<Frame> {
  const element = page.locator(`[data-app="test ${uri}"] iframe`);
  await expect.poll(() => element.count(), { timeout: 15_000 }).toBe(1);
  let frame: Frame | null = null;
  await expect
    .poll(
      async () => {
        frame = (await (await element.elementHandle())?.contentFrame()) ?? null;
        return frame?.url() ?? '';
      },
      { timeout: 15_000 },
    )
    .toMatch(/^http:\/\/127\.0\.0\.1:\d+\/app\/[0-9a-f]{48}$/);
  return frame as unknown as Frame;
}

/** Open a hostile App from the resource list. */
async function openHostile(page: Page, name: string): Promise<string> {
  await page.locator('#load-resources').click();
  const uri = `ui://hostile/${name}.html`;
  await page.locator(`[data-resource="test ${uri}"] button.open-app`).click({ timeout: 15_000 });
  return uri;
}

/** Open a hostile App and wait for what it reports. */
async function hostileOutcome(page: Page, name: string): Promise<{ frame: Frame; outcome: string }> {
  const frame = await appFrame(page, await openHostile(page, name));
  const outcome = frame.locator('#outcome');
  await expect.poll(() => outcome.textContent(), { timeout: 15_000 }).toMatch(new RegExp(`^${name}: `));
  return { frame, outcome: (await outcome.textContent()) ?? '' };
}

describe('the console as an MCP Apps host, in chromium', () => {
  it('renders an App on another origin, initialises it, delivers input and result, answers its call, tears it down', async () => {
    const page = await openConsole();
    const tool = page.locator('details[data-tool="test.show_dashboard"]');
    await tool.locator('summary').click();
    await tool.locator('input[name="title"]').fill('Fleet');
    await tool.getByRole('button', { name: 'Call' }).click();

    const frame = await appFrame(page, 'ui://dashboard/view.html');
    // Another origin than the page's, and a sandbox of scripts alone.
    const pageOrigin = new URL(page.url()).origin;
    expect(new URL(frame.url()).origin).not.toBe(pageOrigin);
    const iframe = page.locator('[data-app="test ui://dashboard/view.html"] iframe');
    expect(await iframe.getAttribute('sandbox')).toBe('allow-scripts');
    expect(
      await iframe.evaluate((f) => (f as unknown as { contentDocument: unknown }).contentDocument),
    ).toBeNull();
    // Its origin is opaque: the sandbox without allow-same-origin.
    expect(await frame.evaluate(() => (globalThis as unknown as { origin: string }).origin)).toBe('null');

    await expect
      .poll(() => frame.locator('#status').textContent(), { timeout: 15_000 })
      .toBe('initialized by mcpx console');
    await expect.poll(() => frame.locator('#input').textContent()).toBe('{"title":"Fleet"}');
    await expect
      .poll(() => frame.locator('#result').textContent())
      .toBe('Fleet: 3 servers up, 0 errors; client shows apps: no');
    // What it logged reached the panel, as text.
    await expect
      .poll(() => page.locator('[data-app="test ui://dashboard/view.html"] .app-log li').allTextContents())
      .toContain('dashboard: initialized');

    // Its own call, to a tool for the app alone, is not the person's: under the policy (trusted)
    // it waits for the person's answer on the page, then is answered through the console's host.
    await frame.locator('#refresh').click();
    const question = page.locator('#questions .question');
    await expect
      .poll(() => question.locator('p').first().textContent(), { timeout: 15_000 })
      .toBe('May tools of test be used?');
    expect(await frame.locator('#refreshed').textContent()).toBe('');
    // Back at the top before the press: Chromium may route a click made just after a long scroll
    // by the frame that was under the pointer before it (the App's, on its own origin).
    await page.evaluate(() => {
      const view = globalThis as unknown as {
        scrollTo(x: number, y: number): void;
        requestAnimationFrame(next: () => void): void;
      };
      view.scrollTo(0, 0);
      return new Promise((done) =>
        view.requestAnimationFrame(() => view.requestAnimationFrame(() => done(0))),
      );
    });
    await question.getByRole('button', { name: 'allow-all' }).click();
    await expect.poll(() => frame.locator('#refreshed').textContent()).toMatch(/^refreshed \d+$/);
    await expect
      .poll(() => page.locator('#calls li strong').allTextContents())
      .toContain('test.refresh_dashboard');
    // Audited as the console's call, naming the App, confirmed by the person's answer.
    const audited = page.locator('#audit tr[data-audit="test.refresh_dashboard"] td');
    await expect
      .poll(() => audited.allTextContents())
      .toEqual([
        expect.any(String),
        'console (app ui://dashboard/view.html of show_dashboard)',
        'test.refresh_dashboard',
        'confirmed by terminal (connect)',
        'ok',
        expect.any(String),
        '',
      ]);

    // Closed: torn down, its frame gone.
    await page.locator('[data-app="test ui://dashboard/view.html"] button.close-app').click();
    await expect.poll(() => page.locator('#apps iframe').count()).toBe(0);
    expect(await page.locator('#apps-section').isHidden()).toBe(true);
  });

  it('opens the App named by mcpx console --open-app once its tool is listed', async () => {
    running = await startConsole(appServer, ['--open-app', 'test.show_dashboard']);
    expect(running.url).toMatch(/&app=test\.show_dashboard$/);
    browser = await launchChromium();
    const page = await browser.newPage();
    expect((await page.goto(running.url))?.status()).toBe(200);
    const frame = await appFrame(page, 'ui://dashboard/view.html');
    await expect
      .poll(() => frame.locator('#status').textContent(), { timeout: 15_000 })
      .toBe('initialized by mcpx console');
    expect(await page.locator('#apps iframe').count()).toBe(1);
  });

  it("keeps an App from reading its host page's document", async () => {
    const page = await openConsole();
    const { outcome } = await hostileOutcome(page, 'reach-parent');
    expect(outcome).toBe('reach-parent: parent: blocked (SecurityError), top: blocked (SecurityError)');
  });

  it('keeps an App from navigating the top window or opening one', async () => {
    const page = await openConsole();
    const { outcome } = await hostileOutcome(page, 'navigate-top');
    expect(outcome).not.toMatch(/OPENED/);
    expect(page.url()).toBe(running?.url);
    expect(page.context().pages()).toHaveLength(1);
    expect(await page.locator('body[data-loaded=true]').count()).toBe(1);
  });

  it('blocks a script its declared CSP forbids', async () => {
    const page = await openConsole();
    const { outcome } = await hostileOutcome(page, 'forbidden-script');
    expect(outcome).toMatch(
      /^forbidden-script: blocked by CSP \(script-src(-elem)? https:\/\/forbidden\.example\.invalid\/evil\.js\)$/,
    );
  });

  it('refuses an App its call to a tool for the model alone', async () => {
    const page = await openConsole();
    const { outcome } = await hostileOutcome(page, 'call-model-only');
    expect(outcome).toMatch(/^call-model-only: refused \(.*model_only_fact.* for the model alone/);
    // Refused before anything is asked or sent: shown as refused, audited as the App's.
    expect(await page.locator('#questions .question').count()).toBe(0);
    const audited = page.locator('#audit tr[data-audit="test.model_only_fact"] td');
    await expect
      .poll(() => audited.allTextContents())
      .toEqual([
        expect.any(String),
        'console (app ui://hostile/call-model-only.html)',
        'test.model_only_fact',
        '',
        'refused',
        expect.any(String),
        '',
      ]);
  });

  it('stops an App that floods it, and stays responsive', async () => {
    const page = await openConsole();
    await openHostile(page, 'flood');
    const status = page.locator('[data-app="test ui://hostile/flood.html"] .app-status');
    await expect
      .poll(() => status.textContent())
      .toBe('app stopped: it sent more than 100 messages in a second');
    await expect.poll(() => page.locator('#apps iframe').count()).toBe(0);
    // The page still answers at once, and the flood's 5,000 calls did not reach the server.
    expect(
      await page.evaluate(() => (globalThis as unknown as { document: { title: string } }).document.title),
    ).toBe('mcpx console');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await page.locator('#calls li').count()).toBe(0);
  });
});
