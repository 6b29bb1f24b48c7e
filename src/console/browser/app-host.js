/**
 * The console page's MCP Apps host, in the browser: the extension's own host side (the ext-apps
 * `AppBridge` over its `PostMessageTransport`), bundled by scripts/bundle.mjs into
 * dist/console-assets/app-host.js, which the console serves from its own origin. It exposes
 * `window.mcpxApps.open(options)` to the page's script (src/console/page/script.ts).
 *
 * The App runs in a frame on the Apps' own origin, sandboxed with `allow-scripts` alone (an opaque
 * origin: no access to the page, no top navigation, no popups, no forms). Nothing it says reaches
 * the page except through the bridge's typed handlers, and what it sends is bounded: a message
 * larger than MAX_MESSAGE_BYTES is dropped, and an App that sends more than MAX_PER_SECOND
 * messages in a second is stopped.
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

const MAX_MESSAGE_BYTES = 1024 * 1024;
const MAX_PER_SECOND = 100;
const TEARDOWN_MS = 2000;

/** The App's transport, counted and size-checked before the bridge sees a message. */
class BoundedTransport {
  constructor(inner, onLimit) {
    this.inner = inner;
    this.onLimit = onLimit;
    this.window = [];
    this.stopped = false;
  }
  start() {
    this.inner.onmessage = (message, extra) => {
      if (this.stopped) return;
      const now = Date.now();
      this.window.push(now);
      while (this.window.length > 0 && this.window[0] < now - 1000) this.window.shift();
      if (this.window.length > MAX_PER_SECOND) {
        this.stopped = true;
        this.onLimit(`it sent more than ${MAX_PER_SECOND} messages in a second`);
        return;
      }
      let size;
      try {
        size = JSON.stringify(message).length;
      } catch {
        return;
      }
      if (size > MAX_MESSAGE_BYTES) return;
      this.onmessage?.(message, extra);
    };
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.onclose?.();
    return this.inner.start();
  }
  send(message, options) {
    return this.inner.send(message, options);
  }
  close() {
    return this.inner.close();
  }
}

/**
 * Render one App. `options`: `container` (the element the frame goes in), `frame` (its URL on
 * the Apps' origin), `title`, `hostContext`, `callTool(name, args)` (a Promise of the result, or a
 * rejection with `{ message }`), `onLog(text)`, `onStopped(reason)`. Answers `{ deliver(input,
 * result), close() }`: the tool's input and result for the App once it is initialised, and the
 * teardown.
 */
async function open(options) {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.setAttribute('referrerpolicy', 'no-referrer');
  frame.title = options.title;
  options.container.appendChild(frame);
  let closed = false;
  let initialized = false;
  let waiting = [];
  const bridge = new AppBridge(
    null,
    { name: 'mcpx console', version: '1' },
    { serverTools: {}, logging: {} },
    { hostContext: options.hostContext },
  );
  const transport = new BoundedTransport(
    new PostMessageTransport(frame.contentWindow, frame.contentWindow),
    (why) => {
      options.onStopped(why);
      void close(false);
    },
  );
  bridge.oncalltool = async (params) => options.callTool(params.name, params.arguments ?? {});
  bridge.onloggingmessage = (params) => {
    const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
    options.onLog(String(data).slice(0, 500));
  };
  bridge.oninitialized = () => {
    initialized = true;
    const queued = waiting;
    waiting = [];
    for (const send of queued) send();
  };
  await bridge.connect(transport);
  frame.src = options.frame;

  async function close(teardown = true) {
    if (closed) return;
    closed = true;
    if (teardown && initialized) {
      await Promise.race([
        bridge.teardownResource({}).catch(() => {}),
        new Promise((resolve) => setTimeout(resolve, TEARDOWN_MS)),
      ]);
    }
    await bridge.close().catch(() => {});
    frame.remove();
  }

  return {
    frame,
    deliver(input, result) {
      const send = () => {
        if (closed) return;
        void bridge.sendToolInput({ arguments: input }).catch(() => {});
        void bridge.sendToolResult(result).catch(() => {});
      };
      if (initialized) send();
      else waiting.push(send);
    },
    close: () => close(true),
  };
}

window.mcpxApps = { open };
