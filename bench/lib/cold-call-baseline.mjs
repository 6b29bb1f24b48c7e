// The cold-call floor: spawn the server, handshake and call with raw
// newline-delimited JSON-RPC, print the text, exit.
// `node cold-call-baseline.mjs SERVER MESSAGE [SERVER ARGS...]`: the server runs on this Node.
import { rawConnect } from './raw-client.mjs';

const [server, message, ...serverArgs] = process.argv.slice(2);
const peer = rawConnect(process.execPath, [server, ...serverArgs], { PATH: process.env.PATH });
await peer.initialize();
const result = await peer.request('tools/call', { name: 'echo', arguments: { message } });
process.stdout.write(`${result.content[0].text}\n`);
await peer.close();
