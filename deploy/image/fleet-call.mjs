// Calls through a fleet of `mcpx serve --http --state redis://…` instances (deploy/image/kube-play.sh):
// a consent round begun on the first instance is answered on the second (the round's state is sealed
// with the shared state key, so any instance may take the answer), then every instance, each with a
// new client, runs the call without asking again (the answer is in the shared store).
// Usage: node deploy/image/fleet-call.mjs TOKEN_FILE URL URL...   Exits 1 if anything differs.
import { readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [tokenFile, ...urls] = process.argv.slice(2);
if (!tokenFile || urls.length < 2) throw new Error('usage: fleet-call.mjs TOKEN_FILE URL URL...');
const token = readFileSync(tokenFile, 'utf8').trim();

/** A client of the 2026-07-28 era whose requests go to `target.url`, which the caller may move. */
async function connect(target) {
  const client = new Client(
    { name: 'fleet-call', version: '0.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: { form: {} } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: (_url, init) => fetch(target.url, init),
    }),
  );
  return client;
}

/** `memory__create_entities`: it writes, so `trusted` asks before it (a read-only tool would just run). */
const create = (client, name, requestState) =>
  client.request(
    {
      method: 'tools/call',
      params: {
        name: 'memory__create_entities',
        arguments: { entities: [{ name, entityType: 'check', observations: ['kube play'] }] },
        ...(requestState
          ? {
              requestState,
              inputResponses: { 'mcpx-consent': { action: 'accept', content: { decision: 'allow-all' } } },
            }
          : {}),
      },
    },
    { allowInputRequired: true },
  );

const said = (round) => JSON.stringify(round.content ?? round.inputRequests ?? round).slice(0, 90);
let failed = false;
const check = (ok, line) => {
  failed ||= !ok;
  console.log(`${ok ? 'ok' : 'FAILED'}: ${line}`);
};

const target = { url: urls[0] };
const first = await connect(target);
const asked = await create(first, 'asked', undefined);
check(asked.resultType === 'input_required', `asked on ${target.url}: ${said(asked)}`);
target.url = urls[1];
const answered = await create(first, 'asked', asked.requestState);
check(
  answered.resultType !== 'input_required' && !answered.isError,
  `answered on ${target.url}: ${said(answered)}`,
);
await first.close();

for (const url of urls) {
  const client = await connect({ url });
  const round = await create(client, `on-${new URL(url).port}`, undefined);
  check(round.resultType !== 'input_required' && !round.isError, `called on ${url} unasked: ${said(round)}`);
  await client.close();
}
process.exitCode = failed ? 1 : 0;
