import { describe, expect, it } from 'vitest';
import { showSignIn } from '../../../../src/cli/terminal/sign-in-prompt.js';

async function shown(url: string, opens: (url: string) => Promise<void>, useBrowser = true) {
  const lines: string[] = [];
  const opened: string[] = [];
  await showSignIn(
    (line) => lines.push(line),
    'sec\u001b[2Jure',
    url,
    useBrowser,
    async (u) => {
      opened.push(u);
      await opens(u);
    },
  );
  return { text: lines.join('\n'), opened };
}

describe('showing a sign-in (the direct path and the light caller alike)', () => {
  it('opens the browser at an https URL and says so, the server name made safe', async () => {
    const { text, opened } = await shown('https://as.example/authorize?x=1', async () => {});
    expect(opened).toEqual(['https://as.example/authorize?x=1']);
    expect(text).toBe("Opening your browser to sign in to 'secure'…");
  });

  it('prints the URL when no browser opens', async () => {
    const { text } = await shown('https://as.example/authorize', async () => {
      throw new Error('no opener');
    });
    expect(text).toContain('Could not open a browser.');
    expect(text).toContain('  https://as.example/authorize');
    // Nothing reads a pasted URL here (only `mcpx auth --no-browser` does): none is asked for.
    expect(text).not.toContain('paste');
    expect(text).toContain('finish the sign-in in the browser');
  });

  it('neither opens nor prints an address that is not http(s)', async () => {
    const { text, opened } = await shown('file:///etc/passwd', async () => {});
    expect(opened).toEqual([]);
    expect(text).not.toContain('/etc/passwd');
    expect(text).toContain('not http(s)');
  });
});
