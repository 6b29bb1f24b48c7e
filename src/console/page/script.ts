/**
 * The console page's script, served as `/console.js` (the page's CSP allows no inline script).
 * Every string a server sent is put on the page with `textContent`, attributes or `value`:
 * never parsed as HTML. Images are shown only as `data:` URLs of an allow-listed image type.
 * Kept free of backticks, dollar-brace and backslashes so that it stays one plain template string.
 */
export const PAGE_SCRIPT = `'use strict';
(function () {
  var token = new URLSearchParams(location.search).get('token') || '';
  var IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
  var shownTools = '';
  var APP_MIME = 'text/html;profile=mcp-app';
  var APP_LOG_LIMIT = 50;
  var openApps = {};
  // mcpx console --open-app SERVER.TOOL: that tool's App is opened once its tool is listed.
  var appToOpen = new URLSearchParams(location.search).get('app') || '';
  // A link mcpx call printed (&call=ID): that call's App, given the input and result the terminal showed.
  var callToOpen = Number(new URLSearchParams(location.search).get('call') || '0');

  function el(tag, props, children) {
    var node = document.createElement(tag);
    Object.keys(props || {}).forEach(function (key) {
      if (key === 'text') node.textContent = props[key];
      else if (key === 'className') node.className = props[key];
      else if (key === 'data') Object.keys(props.data).forEach(function (d) { node.dataset[d] = props.data[d]; });
      else node.setAttribute(key, props[key]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  function api(path, init) {
    init = init || {};
    var headers = { 'X-Mcpx-Token': token };
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    return fetch(path, { method: init.method || 'GET', headers: headers, body: init.body }).then(function (response) {
      return response.json().then(function (body) { return { ok: response.ok, body: body }; });
    });
  }

  function pretty(value) { return JSON.stringify(value, null, 2); }

  function errorText(error) {
    if (!error) return '';
    return (error.code ? error.code + ': ' : '') + (error.message || '');
  }

  function base64Bytes(data) {
    var padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
    return Math.floor(data.length * 3 / 4) - padding;
  }

  function imageUrl(mimeType, data) {
    if (IMAGE_TYPES.indexOf(mimeType) < 0 || typeof data !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return undefined;
    return 'data:' + mimeType + ';base64,' + data;
  }

  function renderBlock(block) {
    if (block.type === 'text') return el('pre', { className: 'content text', text: block.text });
    if (block.type === 'image') {
      var url = imageUrl(block.mimeType, block.data);
      return url
        ? el('img', { className: 'content', src: url, alt: 'image ' + block.mimeType })
        : el('p', { className: 'muted', text: 'an image of type ' + String(block.mimeType) + ' (not shown)' });
    }
    if (block.type === 'resource' && block.resource) return renderResourceContents(block.resource);
    return el('pre', { className: 'content json', text: pretty(block) });
  }

  function renderResourceContents(contents) {
    var mime = contents.mimeType || '';
    if (typeof contents.text === 'string') {
      if (/json/.test(mime)) {
        try { return el('pre', { className: 'content json', text: pretty(JSON.parse(contents.text)) }); } catch (e) {}
      }
      return el('pre', { className: 'content text', text: contents.text });
    }
    if (typeof contents.blob === 'string') {
      var url = imageUrl(mime, contents.blob);
      if (url) return el('img', { className: 'content', src: url, alt: contents.uri });
      return el('p', { className: 'muted', text: 'binary ' + (mime || 'data') + ', ' + base64Bytes(contents.blob) + ' bytes (not shown)' });
    }
    return el('pre', { className: 'content json', text: pretty(contents) });
  }

  function renderResult(call) {
    var box = el('div', { className: 'result', data: { state: call.state } });
    if (call.state === 'running') box.appendChild(el('p', { className: 'muted', text: 'running…' }));
    if (call.error) box.appendChild(el('p', { className: 'error', text: errorText(call.error) }));
    if (call.result) {
      if (call.result.isError) box.appendChild(el('p', { className: 'error', text: 'the tool reported an error' }));
      (call.result.content || []).forEach(function (block) { box.appendChild(renderBlock(block)); });
      if (call.result.structuredContent !== undefined)
        box.appendChild(el('pre', { className: 'content structured', text: pretty(call.result.structuredContent) }));
    }
    return box;
  }

  function renderServers(servers, untrusted) {
    var body = document.querySelector('#servers tbody');
    body.replaceChildren();
    servers.forEach(function (s) {
      body.appendChild(el('tr', { data: { server: s.name } }, [
        el('td', { text: s.name }),
        el('td', { className: 'state-' + s.state, text: s.state }),
        el('td', { text: s.protocolVersion ? s.era + ' (' + s.protocolVersion + ')' : (s.era || '') }),
        el('td', { text: s.transport }),
        el('td', { className: 'error', text: errorText(s.error) }),
      ]));
    });
    untrusted.forEach(function (name) {
      body.appendChild(el('tr', { data: { server: name } }, [
        el('td', { text: name }), el('td', { text: 'untrusted' }), el('td'), el('td'),
        el('td', { className: 'muted', text: 'not approved: mcpx config trust' }),
      ]));
    });
  }

  function fieldFor(name, schema, required) {
    var label = el('label', { text: name + (required ? ' *' : '') + ' ' });
    var input;
    if (Array.isArray(schema.enum) && schema.enum.every(function (v) { return typeof v === 'string'; })) {
      input = el('select', {}, (required ? [] : [el('option', { value: '', text: '' })]).concat(
        schema.enum.map(function (v) { return el('option', { value: v, text: v }); })));
      input.dataset.kind = 'string';
    } else if (schema.type === 'string') {
      input = el('input', { type: 'text' });
      input.dataset.kind = 'string';
    } else if (schema.type === 'number' || schema.type === 'integer') {
      input = el('input', { type: 'number', step: schema.type === 'integer' ? '1' : 'any' });
      input.dataset.kind = 'number';
    } else if (schema.type === 'boolean') {
      input = el('input', { type: 'checkbox' });
      input.dataset.kind = 'boolean';
    } else {
      input = el('textarea', { placeholder: 'JSON' });
      input.dataset.kind = 'json';
    }
    input.name = name;
    if (schema.description) label.appendChild(el('span', { className: 'muted', text: schema.description }));
    label.appendChild(input);
    return label;
  }

  function readForm(form) {
    var raw = form.querySelector('textarea[data-kind=whole]');
    if (raw) return raw.value.trim() === '' ? {} : JSON.parse(raw.value);
    var args = {};
    form.querySelectorAll('[data-kind]').forEach(function (input) {
      var kind = input.dataset.kind;
      if (kind === 'boolean') { if (input.checked) args[input.name] = true; return; }
      if (input.value === '') return;
      if (kind === 'number') args[input.name] = Number(input.value);
      else if (kind === 'json') args[input.name] = JSON.parse(input.value);
      else args[input.name] = input.value;
    });
    return args;
  }

  function toolForm(server, tool) {
    var schema = tool.inputSchema || {};
    var props = schema.properties && typeof schema.properties === 'object' ? schema.properties : undefined;
    var required = Array.isArray(schema.required) ? schema.required : [];
    var form = el('form', { className: 'tool-form' });
    if (props && !schema.oneOf && !schema.anyOf && !schema.allOf) {
      Object.keys(props).forEach(function (name) {
        form.appendChild(fieldFor(name, props[name] || {}, required.indexOf(name) >= 0));
      });
    } else {
      var whole = el('textarea', { placeholder: 'arguments as a JSON object' });
      whole.dataset.kind = 'whole';
      form.appendChild(el('label', { text: 'arguments (JSON) ' }, [whole]));
    }
    var out = el('div', { className: 'tool-result' });
    form.appendChild(el('button', { type: 'submit', text: 'Call' }));
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var args;
      try { args = readForm(form); } catch (e) {
        out.replaceChildren(el('p', { className: 'error', text: 'the arguments are not valid JSON: ' + e.message }));
        return;
      }
      out.replaceChildren(el('p', { className: 'muted', text: 'calling…' }));
      api('/api/call', { method: 'POST', body: JSON.stringify({ server: server, tool: tool.name, args: args }) })
        .then(function (answer) {
          out.replaceChildren(answer.ok ? renderResult(answer.body) : el('p', { className: 'error', text: errorText(answer.body.error) }));
          if (tool.app && answer.ok && answer.body.result) {
            openApp(server, tool.app, tool.name).then(function (app) { app.deliver(args, answer.body.result); }, function () {});
          }
        });
    });
    return el('div', {}, [form, out]);
  }

  function appLine(server, uri, toolName) {
    var button = el('button', { type: 'button', className: 'open-app', text: 'Open app' });
    button.addEventListener('click', function () { openApp(server, uri, toolName).catch(function () {}); });
    return el('p', { className: 'muted app' }, [el('span', { text: 'has an MCP App: ' + uri + ' ' }), button]);
  }

  // The App's own call, named as its: the host decides it by the policy, not as the person's.
  function appCall(server, name, args, app) {
    return api('/api/app-call', { method: 'POST', body: JSON.stringify({ server: server, tool: name, args: args, app: app }) })
      .then(function (answer) {
        var error = answer.ok ? answer.body.error : answer.body.error || { message: 'refused' };
        if (error) throw new Error(errorText(error));
        return answer.body.result;
      });
  }

  // One App panel per server and ui:// URI: its frame (on the Apps' own origin, through
  // window.mcpxApps, the ext-apps AppBridge), its state, what it logged, and its Close button.
  function openApp(server, uri, forTool) {
    var key = server + ' ' + uri;
    var caller = forTool ? { uri: uri, tool: forTool } : { uri: uri };
    if (openApps[key]) return openApps[key];
    var section = document.getElementById('apps-section');
    section.hidden = false;
    var stopped = false;
    var status = el('p', { className: 'muted app-status', text: 'opening…' });
    var logs = el('ol', { className: 'app-log' });
    var close = el('button', { type: 'button', className: 'close-app', text: 'Close' });
    var holder = el('div', { className: 'app-frame' });
    var panel = el('div', { className: 'app', data: { app: key } }, [
      el('h3', { text: server + ': ' + uri }), close, status, holder, logs,
    ]);
    document.getElementById('apps').appendChild(panel);
    var pending = api('/api/app', { method: 'POST', body: JSON.stringify({ server: server, uri: uri }) })
      .then(function (answer) {
        if (!answer.ok) throw new Error(errorText(answer.body.error));
        return window.mcpxApps.open({
          container: holder,
          frame: answer.body.frame,
          title: server + ': ' + uri,
          hostContext: { theme: 'light', displayMode: 'inline', availableDisplayModes: ['inline'], platform: 'web' },
          callTool: function (name, args) { return appCall(server, name, args, caller); },
          onLog: function (text) {
            if (logs.children.length >= APP_LOG_LIMIT) logs.firstChild.remove();
            logs.appendChild(el('li', { text: text }));
          },
          onStopped: function (why) {
            stopped = true;
            status.className = 'error app-status';
            status.textContent = 'app stopped: ' + why;
          },
        });
      })
      .then(function (app) {
        if (!stopped) status.textContent = 'running';
        return app;
      }, function (error) {
        status.className = 'error app-status';
        status.textContent = 'cannot open the app: ' + error.message;
        throw error;
      });
    close.addEventListener('click', function () {
      pending.then(function (app) { return app.close(); }, function () {}).then(function () {
        panel.remove();
        delete openApps[key];
        if (!document.querySelector('#apps .app')) section.hidden = true;
      });
    });
    openApps[key] = pending;
    return pending;
  }

  function openAskedApp(servers) {
    if (!appToOpen) return;
    servers.forEach(function (s) {
      s.tools.forEach(function (tool) {
        if (appToOpen && tool.app && s.name + '.' + tool.name === appToOpen) {
          appToOpen = '';
          openApp(s.name, tool.app, tool.name).catch(function () {});
        }
      });
    });
  }

  function openHeldCall(servers, calls) {
    if (!callToOpen) return;
    var call = calls.filter(function (c) { return c.id === callToOpen; })[0];
    if (!call || !call.result) return;
    servers.forEach(function (s) {
      s.tools.forEach(function (tool) {
        if (callToOpen && tool.app && s.name === call.server && tool.name === call.tool) {
          callToOpen = 0;
          openApp(s.name, tool.app, tool.name).then(function (app) { app.deliver(call.args, call.result); }, function () {});
        }
      });
    });
  }

  function renderTools(servers) {
    openAskedApp(servers);
    var signature = JSON.stringify(servers.map(function (s) { return [s.name, s.tools]; }));
    if (signature === shownTools) return;
    shownTools = signature;
    var box = document.getElementById('tools');
    box.replaceChildren();
    servers.forEach(function (s) {
      s.tools.forEach(function (tool) {
        box.appendChild(el('details', { className: 'tool', data: { tool: s.name + '.' + tool.name } }, [
          el('summary', {}, [el('strong', { text: s.name + '.' + tool.name })]),
          el('div', { className: 'description', text: tool.description || '' }),
          tool.app ? appLine(s.name, tool.app, tool.name) : null,
          toolForm(s.name, tool),
        ]));
      });
    });
  }

  // Each call's item is drawn once and again only when it settles: with 1,000 calls kept, a
  // new call costs one item, not the whole list (see bench/README.md, the console row).
  var shownCalls = {};

  function callItem(call) {
    return el('li', { className: 'call', data: { call: String(call.id) } }, [
      el('strong', { text: call.server + '.' + call.tool }),
      el('span', { className: 'muted', text: ' ' + call.state + (call.ms !== undefined ? ', ' + call.ms + ' ms' : '') }),
      el('pre', { className: 'args', text: pretty(call.args) }),
      renderResult(call),
    ]);
  }

  function renderCalls(calls) {
    var list = document.getElementById('calls');
    var kept = {};
    var at = list.firstChild;
    for (var i = calls.length - 1; i >= 0; i--) {
      var call = calls[i];
      var key = call.state + ' ' + call.ms;
      var shown = shownCalls[call.id];
      if (!shown || shown.key !== key) {
        var node = callItem(call);
        // Redrawn in its place (the cursor moves to the new node if it stood on the old one).
        if (shown) {
          if (at === shown.node) at = node;
          shown.node.replaceWith(node);
        }
        shown = { node: node, key: key };
      }
      kept[call.id] = shown;
      if (shown.node !== at) list.insertBefore(shown.node, at);
      else at = at.nextSibling;
    }
    Object.keys(shownCalls).forEach(function (id) { if (!kept[id]) shownCalls[id].node.remove(); });
    shownCalls = kept;
  }

  function decisionText(decision) {
    if (!decision) return '';
    if (decision.result === 'allowed') return 'allowed by ' + decision.by;
    if (decision.result === 'confirmed') return 'confirmed by ' + decision.by + ' (' + decision.question + ')';
    return decision.result + ' by ' + decision.by + (decision.reason ? ': ' + decision.reason : '');
  }

  function renderAudit(records) {
    var body = document.querySelector('#audit tbody');
    body.replaceChildren();
    records.slice().reverse().forEach(function (r) {
      body.appendChild(el('tr', { data: { audit: (r.server || '') + '.' + r.tool } }, [
        el('td', { text: r.time }),
        el('td', { text: r.client + (r.app ? ' (app ' + r.app.uri + (r.app.tool ? ' of ' + r.app.tool : '') + ')' : '') }),
        el('td', { text: (r.server ? r.server + '.' : '') + r.tool }),
        el('td', { text: decisionText(r.decision) }),
        el('td', { className: r.outcome === 'ok' ? '' : 'error', text: r.outcome + (r.error ? ': ' + r.error.message : '') }),
        el('td', { text: String(r.durationMs) }),
        el('td', { text: (r.argumentKeys || []).join(', ') }),
      ]));
    });
  }

  // A question keeps its element while it waits: redrawn on every refresh, a button could be
  // replaced between the press and the release of a person's click, and the answer lost.
  function renderQuestions(questions) {
    document.getElementById('questions-section').hidden = questions.length === 0;
    var box = document.getElementById('questions');
    var waiting = {};
    questions.forEach(function (q) { waiting[String(q.id)] = true; });
    Array.prototype.slice.call(box.children).forEach(function (child) {
      if (!waiting[child.dataset.question]) child.remove();
    });
    questions.forEach(function (q) {
      if (box.querySelector('[data-question="' + String(q.id) + '"]')) return;
      var what = q.kind === 'connect' ? 'May tools of ' + q.server + ' be used?' : 'May ' + q.server + '.' + q.tool + ' be called' + (q.kind === 'changed' ? ' (its definition changed)?' : '?');
      box.appendChild(el('div', { className: 'question', data: { question: String(q.id) } }, [
        el('p', { text: what }),
        el('pre', { text: pretty(q.detail) }),
        el('div', {}, q.choices.map(function (choice) {
          var button = el('button', { type: 'button', text: choice });
          button.addEventListener('click', function () {
            api('/api/answer', { method: 'POST', body: JSON.stringify({ id: q.id, choice: choice }) });
          });
          return button;
        })),
      ]));
    });
  }

  function refresh() {
    return api('/api/state').then(function (answer) {
      if (!answer.ok) return;
      renderServers(answer.body.servers, answer.body.untrusted);
      renderTools(answer.body.servers);
      openHeldCall(answer.body.servers, answer.body.calls);
      renderCalls(answer.body.calls);
      renderAudit(answer.body.audit);
      renderQuestions(answer.body.questions);
      document.body.dataset.loaded = 'true';
      // The waterfalls and the daemon (console-observe.js) read again with the rest.
      document.dispatchEvent(new Event('mcpx-refreshed'));
    });
  }

  function loadList(kind, box, render) {
    api('/api/' + kind).then(function (answer) {
      box.replaceChildren();
      (answer.body || []).forEach(function (entry) {
        if (entry.error) { box.appendChild(el('p', { className: 'error', text: entry.server + ': ' + errorText(entry.error) })); return; }
        entry.items.forEach(function (item) { box.appendChild(render(entry.server, item)); });
      });
    });
  }

  function resourceRow(server, resource) {
    var read = el('button', { type: 'button', text: 'Read' });
    read.addEventListener('click', function () {
      var view = document.getElementById('resource-view');
      var q = new URLSearchParams({ server: server, uri: resource.uri });
      api('/api/read?' + q.toString()).then(function (answer) {
        view.replaceChildren(el('h3', { text: server + ': ' + resource.uri }));
        if (!answer.ok) { view.appendChild(el('p', { className: 'error', text: errorText(answer.body.error) })); return; }
        (answer.body.contents || []).forEach(function (c) { view.appendChild(renderResourceContents(c)); });
      });
    });
    var isApp = resource.mimeType === APP_MIME && typeof resource.uri === 'string' && resource.uri.indexOf('ui://') === 0;
    var openButton = null;
    if (isApp) {
      openButton = el('button', { type: 'button', className: 'open-app', text: 'Open app' });
      openButton.addEventListener('click', function () { openApp(server, resource.uri).catch(function () {}); });
    }
    return el('div', { className: 'resource', data: { resource: server + ' ' + resource.uri } }, [
      el('strong', { text: server + ' ' }), el('code', { text: resource.uri }),
      el('span', { className: 'muted', text: ' ' + (resource.mimeType || '') + ' ' + (resource.description || resource.name || '') + ' ' }),
      read, openButton,
    ]);
  }

  function promptRow(server, prompt) {
    var args = (prompt.arguments || []).map(function (a) { return a.name + (a.required ? '*' : ''); }).join(', ');
    return el('div', { className: 'prompt', data: { prompt: server + '.' + prompt.name } }, [
      el('strong', { text: server + '.' + prompt.name }),
      el('span', { className: 'muted', text: ' (' + args + ') ' + (prompt.description || '') }),
    ]);
  }

  document.addEventListener('DOMContentLoaded', function () {
    document.getElementById('load-resources').addEventListener('click', function () {
      loadList('resources', document.getElementById('resources'), resourceRow);
    });
    document.getElementById('load-prompts').addEventListener('click', function () {
      loadList('prompts', document.getElementById('prompts'), promptRow);
    });
    var live = document.getElementById('live');
    var events = new EventSource('/api/events?token=' + encodeURIComponent(token));
    var queued = false;
    events.addEventListener('open', function () { live.textContent = 'live'; });
    events.addEventListener('error', function () { live.textContent = 'disconnected'; });
    events.addEventListener('changed', function () {
      if (queued) return;
      queued = true;
      setTimeout(function () { queued = false; refresh(); }, 50);
    });
    refresh();
  });
})();
`;
