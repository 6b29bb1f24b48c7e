/**
 * The stdio transport's framing check, for the thin serve's bridge (cli/), which reaches the
 * transports only through the host and must stay light: this module alone, not the host's index.
 */
export { asJsonRpcMessage } from '../transport/stdio/json-rpc-frame.js';
