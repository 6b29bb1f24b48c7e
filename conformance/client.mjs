#!/usr/bin/env node
// The client under test for the official MCP conformance suite. The suite
// starts a scenario server and runs `node conformance/client.mjs <url>` with
// MCP_CONFORMANCE_SCENARIO set. This adapter drives mcpx's public library API
// (dist/index.js, and dist/low-level.js for one connection without a registry)
// the way a user's code would: an ad-hoc remote server, the automatic
// protocol-era negotiation, every tool listed and called.
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adhocHttpServer, createHost, formatErrorVerbose, VERSION } from '../dist/index.js';
import { connectServer, createServerTransport, signIn, TokenStore } from '../dist/low-level.js';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';

/** What the scenario tells the client to do (`MCP_CONFORMANCE_CONTEXT`), if anything. */
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};

/** Arguments that satisfy a simple input schema: every required property gets a typed sample. */
function sampleArguments(schema) {
  const args = {};
  const required = new Set(schema?.required ?? []);
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    if (!required.has(name)) continue;
    const type = Array.isArray(property?.type) ? property.type[0] : property?.type;
    if (property?.default !== undefined) args[name] = property.default;
    else if (Array.isArray(property?.enum)) args[name] = property.enum[0];
    else if (type === 'number' || type === 'integer') args[name] = 1;
    else if (type === 'boolean') args[name] = true;
    else if (type === 'array') args[name] = [];
    else if (type === 'object') args[name] = {};
    else args[name] = 'conformance';
  }
  return args;
}

/**
 * The calls to make: the ones the scenario names in its context, else each
 * tool once with sample arguments. A tool that asks for another tool's input
 * schema "verbatim" gets it, as a host that re-serves schemas would pass them.
 */
function plannedCalls(tools) {
  if (Array.isArray(context.toolCalls))
    return context.toolCalls.map((c) => ({ name: c.name, args: c.arguments ?? {} }));
  if (scenario === 'json-schema-2020-12-preservation') {
    const [focal, echo] = [
      tools.find((t) => t.name !== 'echo_schema' && /2020/.test(t.name)),
      tools.find((t) => /echo/.test(t.name)),
    ];
    if (focal && echo) return [{ name: echo.name, args: { schema: focal.inputSchema } }];
  }
  return tools.map((tool) => ({ name: tool.name, args: sampleArguments(tool.inputSchema) }));
}

/**
 * The browser step of a sign-in, done headlessly: follow the authorization
 * URL to its redirect and deliver that to mcpx's loopback listener, as a
 * browser would after the user approved.
 */
async function followAuthorization(authorizationUrl) {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (!location) throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  await fetch(new URL(location, authorizationUrl));
}

/**
 * Where this host's client metadata document (CIMD) would be published. A
 * user who hosts one sets `oauth.client_metadata_url`; authorization servers
 * that accept URL client ids use it, the others still get a registration.
 */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/** The RFC 7523 JWT-bearer grant: workload identity and enterprise-managed authorization. */
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * The server's `oauth` block as its user would write it: machine credentials
 * for a client-credentials server, a pre-registered client when the scenario
 * hands one out, else the client metadata document.
 */
function oauthSettings(home) {
  if (scenario === 'auth/wif-jwt-bearer') {
    // A workload's token as a platform mounts it (Kubernetes, CI): a file mcpx reads at each request.
    writeFileSync(join(home, 'workload-token'), context.valid_jwt, { mode: 0o600 });
    return {
      grant_type: JWT_BEARER,
      client_id: context.client_id,
      assertion_file: join(home, 'workload-token'),
    };
  }
  if (context.idp_id_token) {
    // Enterprise-managed authorization (SEP-990): the person's ID token from the enterprise IdP, in
    // the environment mcpx runs in; mcpx trades it there for an ID-JAG, and that for a token.
    process.env.MCP_CONFORMANCE_ID_TOKEN = context.idp_id_token;
    return {
      grant_type: JWT_BEARER,
      client_id: context.client_id,
      client_secret: context.client_secret,
      idp_token_endpoint: context.idp_token_endpoint,
      idp_client_id: context.idp_client_id,
      id_token_env: 'MCP_CONFORMANCE_ID_TOKEN',
    };
  }
  if (scenario.startsWith('auth/client-credentials')) {
    return {
      grant_type: 'client_credentials',
      client_id: context.client_id,
      ...(context.client_secret ? { client_secret: context.client_secret } : {}),
      ...(context.private_key_pem
        ? { private_key: context.private_key_pem, signing_algorithm: context.signing_algorithm }
        : {}),
    };
  }
  // DPoP-bound tokens (SEP-1932): the scenario's authorization server binds them to mcpx's key.
  const dpop = scenario.startsWith('auth/dpop') ? { dpop: true } : {};
  if (context.client_id)
    return { client_id: context.client_id, client_secret: context.client_secret, ...dpop };
  return { client_metadata_url: CLIENT_METADATA_URL, ...dpop };
}

async function main() {
  const home = await mkdtemp(join(tmpdir(), 'mcpx-conformance-home-'));
  const oauth = oauthSettings(home);
  const server = { ...adhocHttpServer(url), name: 'conformance', oauth };
  try {
    // A person signs in first; a machine (client credentials, a JWT-bearer assertion) signs in by itself on connect.
    if (scenario.startsWith('auth/') && oauth.grant_type === undefined) {
      await signIn(server, { store: new TokenStore(home), present: followAuthorization, timeoutMs: 10_000 });
    }
    if (scenario.startsWith('sep-2640-client-')) await exerciseSkills(server, home);
    else await exercise(server, home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

async function exercise(server, home) {
  const connection = await connectServer(server, {
    createTransport: () =>
      createServerTransport(server, {
        hostEnv: process.env,
        oauthHome: home,
        // An interactive host: a step-up or a moved authorization server signs in again mid-session.
        signIn: { present: followAuthorization, timeoutMs: 10_000 },
      }),
    clientInfo: { name: 'mcpx', version: VERSION },
    // A user who accepts every form without typing anything: mcpx fills in the schema's defaults.
    features: { elicitation: { form: async () => ({ action: 'accept', content: {} }) } },
  });
  try {
    const tools = await connection.listTools();
    console.error(
      `[${scenario}] ${connection.era} era, protocol ${connection.protocolVersion}, ${tools.length} tools`,
    );
    for (const { name, args } of plannedCalls(tools)) {
      try {
        const result = await connection.callTool(name, args);
        console.error(`[${scenario}] ${name}: ${result.isError ? 'tool error' : 'ok'}`);
      } catch (error) {
        console.error(`[${scenario}] ${name} failed:\n${formatErrorVerbose(error)}`);
      }
    }
  } finally {
    await connection.close();
  }
}

/**
 * The skills scenarios (SEP-2640), through the host's skills API as a program would use it: the
 * listing first, which reads no file; then, as an agent loading a skill on demand, each skill's
 * SKILL.md (verified by mcpx) and, only once it verifies, the files the skill lists. The
 * no-prefetch scenario stands for a session that lists skills and loads none.
 */
async function exerciseSkills(server, home) {
  const host = createHost({ adhoc: server, cwd: home, homedir: home, env: {}, audit: false });
  try {
    const skills = host.skills();
    const listing = await skills.list({ servers: [server.name] });
    console.error(`[${scenario}] ${listing.skills.length} skills, ${listing.refused.length} refused`);
    if (scenario === 'sep-2640-client-no-prefetch') return;
    for (const skill of listing.skills) {
      try {
        await skills.get(server.name, skill.name);
        for (const file of skill.files === 'dynamic' ? [] : skill.files.slice(1))
          await skills.readFile(server.name, skill.name, file.path);
        console.error(`[${scenario}] ${skill.id}: loaded`);
      } catch (error) {
        console.error(`[${scenario}] ${skill.id} refused:\n${formatErrorVerbose(error)}`);
      }
    }
  } finally {
    await host.close();
  }
}

main().catch((error) => {
  console.error(formatErrorVerbose(error));
  process.exit(1);
});
