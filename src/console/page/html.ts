/**
 * The console's page: a shell the script (`/console.js`) fills with DOM calls. `token` is the
 * console's own hex secret (never a server's string), in the asset URLs because every request
 * must carry it.
 */
export function pageHtml(token: string): string {
  if (!/^[0-9a-f]+$/.test(token)) throw new TypeError('the console token is hex');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="referrer" content="no-referrer">',
    '<title>mcpx console</title>',
    `<link rel="stylesheet" href="/console.css?token=${token}">`,
    `<script src="/app-host.js?token=${token}" defer></script>`,
    `<script src="/console.js?token=${token}" defer></script>`,
    `<script src="/console-observe.js?token=${token}" defer></script>`,
    '</head>',
    '<body>',
    '<header><h1>mcpx console</h1><span id="live" class="muted">connecting…</span></header>',
    '<section id="questions-section" hidden><h2>Questions</h2><div id="questions"></div></section>',
    '<section><h2>Servers</h2><table id="servers"><thead><tr><th>Server</th><th>State</th><th>Era</th><th>Transport</th><th>Error</th></tr></thead><tbody></tbody></table></section>',
    '<section><h2>Connect waterfall</h2><div id="waterfalls"></div></section>',
    '<section><h2>Keep-alive daemon</h2><div id="daemon"></div></section>',
    '<section id="apps-section" hidden><h2>Apps</h2><div id="apps"></div></section>',
    '<section><h2>Tools</h2><div id="tools"></div></section>',
    '<section><h2>Resources</h2><button type="button" id="load-resources">List resources</button><div id="resources"></div><div id="resource-view"></div></section>',
    '<section><h2>Prompts</h2><button type="button" id="load-prompts">List prompts</button><div id="prompts"></div></section>',
    '<section><h2>Calls this session</h2><ol id="calls" reversed></ol></section>',
    '<section><h2>Audit log (this session)</h2><table id="audit"><thead><tr><th>Time</th><th>Client</th><th>Tool</th><th>Decision</th><th>Outcome</th><th>ms</th><th>Arguments</th></tr></thead><tbody></tbody></table></section>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
