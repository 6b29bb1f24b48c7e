/**
 * The console page's second script, served as `/console-observe.js`: each server's connect
 * waterfall (bars drawn with DOM and CSSOM, no library) and the keep-alive daemon with its
 * sessions. It reads again whenever the main script has (`mcpx-refreshed`), and the daemon every
 * few seconds too (its callers come and go without the console hearing). Every server string goes
 * on the page with `textContent`. Kept free of backticks, dollar-brace and backslashes so that it
 * stays one plain template string.
 */
export const OBSERVE_SCRIPT = `'use strict';
(function () {
  var token = new URLSearchParams(location.search).get('token') || '';
  var DAEMON_POLL_MS = 5000;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function get(path) {
    return fetch(path, { headers: { 'X-Mcpx-Token': token } }).then(function (response) {
      return response.json().then(function (body) { return { ok: response.ok, body: body }; });
    });
  }

  function ms(n) { return (Math.round(n * 10) / 10) + ' ms'; }

  function duration(n) {
    var s = Math.floor(n / 1000);
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm ' + (s % 60) + 's';
    return Math.floor(s / 3600) + 'h ' + Math.floor((s % 3600) / 60) + 'm';
  }

  function renderWaterfalls(list) {
    var box = document.getElementById('waterfalls');
    box.replaceChildren();
    if (list.length === 0) box.appendChild(el('p', 'muted', 'no server has connected yet'));
    list.forEach(function (w) {
      var total = Math.max(0.1, Math.max.apply(null, w.spans.map(function (s) { return s.startMs + s.durationMs; })));
      var block = el('div', 'waterfall');
      block.dataset.server = w.server;
      block.dataset.trace = w.trace || '';
      block.appendChild(el('h3', '', w.server + ' (' + ms(total) + (w.routed ? ', through the keep-alive daemon' : '') + ')'));
      w.spans.forEach(function (s) {
        var row = el('div', 'wf-row' + (s.error ? ' error' : ''));
        row.dataset.span = s.name;
        var name = el('span', 'wf-name', s.name);
        name.style.paddingLeft = s.depth + 'em';
        var track = el('span', 'wf-track');
        var bar = el('span', 'wf-bar');
        bar.style.left = Math.min(99.5, (s.startMs / total) * 100) + '%';
        bar.style.width = Math.max(0.5, (s.durationMs / total) * 100) + '%';
        track.appendChild(bar);
        row.appendChild(name);
        row.appendChild(track);
        row.appendChild(el('span', 'wf-ms', '+' + ms(s.startMs) + ', ' + ms(s.durationMs) + (s.error ? ': ' + s.error : '')));
        block.appendChild(row);
      });
      box.appendChild(block);
    });
  }

  function cell(text, className) { return el('td', className || '', text); }

  function renderDaemon(answer) {
    var box = document.getElementById('daemon');
    box.replaceChildren();
    if (!answer.ok) { box.appendChild(el('p', 'error', (answer.body.error && answer.body.error.message) || 'cannot ask the daemon')); return; }
    var d = answer.body;
    if (!d.known) { box.appendChild(el('p', 'muted', 'this console cannot ask a daemon')); return; }
    if (!d.running) { box.appendChild(el('p', 'muted daemon-none', 'no keep-alive daemon runs for this config (mcpx daemon start)')); return; }
    var callers = Math.max(0, d.clients - 1);
    box.appendChild(el('p', 'daemon-summary', 'running: pid ' + d.pid + ', up ' + duration(d.uptimeMs) + (d.all ? ', all servers' : '') + ', ' + callers + ' client' + (callers === 1 ? '' : 's') + ' connected'));
    if (d.servers.length === 0) { box.appendChild(el('p', 'muted', 'no warm servers')); return; }
    var table = el('table', 'daemon-servers');
    var head = el('tr');
    ['Server', 'State', 'Uptime', 'Calls', 'Sessions', 'Last error'].forEach(function (h) { head.appendChild(el('th', '', h)); });
    table.appendChild(el('thead')).appendChild(head);
    var body = table.appendChild(el('tbody'));
    d.servers.forEach(function (s) {
      var row = el('tr');
      row.dataset.server = s.name;
      var sessions = (s.sessions || []).map(function (c) {
        return (c.pid === undefined ? '' : 'pid ' + c.pid + ' ') + c.command + ' (' + c.calls + ' call' + (c.calls === 1 ? '' : 's') + ', ' + duration(c.sinceMs) + ')';
      });
      [s.name, s.state, s.uptimeMs === undefined ? '-' : duration(s.uptimeMs), String(s.calls), sessions.join('; ') || '-', s.lastError || '-']
        .forEach(function (text, i) { row.appendChild(cell(text, i === 1 ? 'state-' + s.state : i === 5 && s.lastError ? 'error' : '')); });
      body.appendChild(row);
    });
    box.appendChild(table);
  }

  function refreshWaterfalls() {
    return get('/api/waterfalls').then(function (answer) { if (answer.ok) renderWaterfalls(answer.body); });
  }

  function refreshDaemon() {
    return get('/api/daemon').then(renderDaemon, function () {});
  }

  document.addEventListener('DOMContentLoaded', function () {
    document.addEventListener('mcpx-refreshed', function () { refreshWaterfalls(); refreshDaemon(); });
    refreshWaterfalls();
    refreshDaemon();
    setInterval(refreshDaemon, DAEMON_POLL_MS);
  });
})();
`;
