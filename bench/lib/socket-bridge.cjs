// The floor of any bridge to a daemon: a Node process that pipes its stdin to a
// Unix socket and the socket to its stdout, nothing else. The thin `mcpx serve`
// does this plus finding its daemon and the session's hello; the bench reports
// its memory and start next to this one's. CommonJS, as mcpx's own entry is.
// `node socket-bridge.cjs <socket path>`
const socket = require('node:net').connect(process.argv[2]);
process.stdin.pipe(socket);
socket.pipe(process.stdout);
