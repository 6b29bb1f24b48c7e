// The cold-call floor: spawn the server, handshake and call with raw
// newline-delimited JSON-RPC, print the text, exit.
import { rawConnect } from './raw-client.mjs';

const [server, message] = [process.argv[2], process.argv[3]];
const peer = rawConnect(process.execPath, [server], { PATH: process.env.PATH });
await peer.initialize();
const result = await peer.request('tools/call', { name: 'echo', arguments: { message } });
process.stdout.write(`${result.content[0].text}\n`);
await peer.close();
