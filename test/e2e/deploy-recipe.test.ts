/**
 * The fleet recipe (docs/deploy-fleet.md) checked as text, fast and everywhere (the image itself is
 * built and run by test/image/image.test.ts, the manifests played by deploy/image/kube-play.sh): the
 * Dockerfile's stages, user, entrypoint, ports and health check, every file it
 * copies present and let through by .dockerignore; the Kubernetes manifests read as YAML, their
 * probes, user, grace, secrets and Redis wired together, and their `mcpx serve` arguments run
 * for real by the built CLI (the probes' paths answered 200 by it, the image's health check
 * command passing against it).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, repoRoot, testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';
import { parseYamlDocuments } from '../helpers/yaml-subset.js';

const run = promisify(execFile);

/**
 * The manifest's flag that needs its Redis: checked against `--help` like the rest, but left out
 * when the manifest's arguments run here (test/fleet runs `serve --state` on a real Redis, and
 * deploy/image/kube-play.sh plays the manifest itself).
 */
const STORE_FLAGS = new Set(['--state']);

interface Instruction {
  readonly op: string;
  readonly args: string;
}

/**
 * The Dockerfile's instructions (continuations joined, comments dropped), split into stages; the
 * first holds those before the first FROM (its global ARGs).
 */
function dockerStages(text: string): Instruction[][] {
  const joined = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replaceAll(/\\\n/g, ' ');
  const stages: Instruction[][] = [[]];
  for (const line of joined.split('\n')) {
    const match = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!match) continue;
    const instruction = { op: match[1] as string, args: (match[2] as string).trim() };
    if (instruction.op === 'FROM') stages.push([]);
    (stages.at(-1) as Instruction[]).push(instruction);
  }
  return stages;
}

/** Whether .dockerignore lets `path` (relative, top level or below) into the build context. */
function inContext(path: string, patterns: readonly string[]): boolean {
  const parts = path.split('/');
  let included = true;
  for (const pattern of patterns) {
    const negated = pattern.startsWith('!');
    const glob = (negated ? pattern.slice(1) : pattern).replace(/\/$/, '');
    const re = new RegExp(`^${glob.replaceAll('.', '\\.').replaceAll('*', '[^/]*')}$`);
    if (parts.some((_, i) => re.test(parts.slice(0, i + 1).join('/')))) included = negated;
  }
  return included;
}

const flagsOf = (help: string) => new Set(help.match(/--[a-z][a-z-]*/g));
const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

let serveFlags: Set<string>;
let globalFlags: Set<string>;
let world: GatewayWorld;

beforeAll(async () => {
  const help = async (args: string[]) => (await run(process.execPath, [cliPath, ...args])).stdout;
  [serveFlags, globalFlags] = (await Promise.all([help(['serve', '--help']), help(['--help'])])).map(
    flagsOf,
  ) as [Set<string>, Set<string>];
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: { local: { command: process.execPath, args: [testServerPath] } },
  });
}, 60_000);

afterAll(() => world?.close());

/** `mcpx <args>` checked flag by flag: global flags before the command, `serve`'s after it. */
function expectAcceptedFlags(args: readonly string[]): void {
  const at = args.indexOf('serve');
  expect(at, 'the command is mcpx … serve …').toBeGreaterThanOrEqual(0);
  for (const flag of args.slice(0, at).filter((a) => a.startsWith('--')))
    expect(globalFlags.has(flag), `mcpx ${flag}`).toBe(true);
  for (const flag of args.slice(at + 1).filter((a) => a.startsWith('--')))
    expect(serveFlags.has(flag), `mcpx serve ${flag}`).toBe(true);
}

const flagValue = (args: readonly string[], flag: string) => {
  const at = args.indexOf(flag);
  return at < 0 ? undefined : args[at + 1];
};

describe('Dockerfile', () => {
  const stages = dockerStages(read('Dockerfile'));
  const final = stages.at(-1) ?? [];
  const args = new Map(
    stages
      .flat()
      .filter((i) => i.op === 'ARG' && i.args.includes('='))
      .map((i) => i.args.split('=') as [string, string]),
  );
  const of = (op: string) => final.filter((i) => i.op === op);
  const json = (op: string) => JSON.parse((of(op)[0] as Instruction).args) as string[];

  it('builds in one stage and runs on a slim Node 24 image in another', () => {
    expect(stages.length - 1).toBeGreaterThanOrEqual(2);
    const from = (final[0] as Instruction).args.replace(
      /\$\{NODE_VERSION\}/,
      args.get('NODE_VERSION') ?? '?',
    );
    expect(from).toMatch(/^node:24[.\w-]*-slim\b/);
    expect(stages.flat().some((i) => i.op === 'RUN' && /npm (ci|install)\b/.test(i.args))).toBe(true);
    expect(stages.flat().some((i) => i.op === 'RUN' && /npm run build\b/.test(i.args))).toBe(true);
  });

  it('runs as a user that is not root, under tini, with the runtimes of stdio servers named', () => {
    const user = (of('USER').at(-1) as Instruction).args;
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(json('ENTRYPOINT').slice(0, 3)).toEqual(['/usr/bin/tini', '--', 'mcpx']);
    const runs = final.filter((i) => i.op === 'RUN').map((i) => i.args);
    expect(runs.some((r) => /install .*\btini\b/.test(r))).toBe(true);
    expect(final.some((i) => i.op === 'ARG' && /^WITH_PYTHON=0$/.test(i.args))).toBe(true);
    expect(runs.some((r) => /WITH_PYTHON/.test(r) && /python3/.test(r) && /\buv\b/.test(r))).toBe(true);
  });

  it("serves on the port it exposes and checks that port's /healthz; its arguments are mcpx's flags", () => {
    const cmd = json('CMD');
    expectAcceptedFlags(cmd);
    const port = flagValue(cmd, '--port');
    expect((of('EXPOSE')[0] as Instruction).args).toBe(port);
    expect((of('HEALTHCHECK')[0] as Instruction).args).toContain(`http://127.0.0.1:${port}/healthz`);
    // Every interface needs a token (mcpx refuses --host 0.0.0.0 without one).
    expect(flagValue(cmd, '--host')).toBe('0.0.0.0');
    expect(flagValue(cmd, '--token-file')).toBeDefined();
  });

  it('copies only files that exist and that .dockerignore lets into the context', () => {
    const patterns = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const sources = stages
      .flat()
      .filter((i) => i.op === 'COPY' && !i.args.startsWith('--from'))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(join(repoRoot, source)), `${source} exists`).toBe(true);
      expect(inContext(source.replace(/^\.\//, ''), patterns), `${source} is in the build context`).toBe(
        true,
      );
    }
    // What must not be sent to a builder stays out.
    for (const kept of ['node_modules', 'dist', '.git', 'test/e2e'])
      expect(inContext(kept, patterns)).toBe(false);
  });

  it("its health check command passes against a live gateway's /healthz and fails against nothing", async () => {
    const [node, ...check] = JSON.parse(
      (of('HEALTHCHECK')[0] as Instruction).args.replace(/^.*?CMD\s+/, ''),
    ) as string[];
    expect(node).toBe('node');
    const gateway = await world.serve();
    const port = new URL(gateway.url).port;
    const withPort = (p: string) => check.map((a) => a.replace('127.0.0.1:8080', `127.0.0.1:${p}`));
    await expect(run(process.execPath, withPort(port))).resolves.toBeDefined();
    await world.stopAll();
    await expect(run(process.execPath, withPort(port))).rejects.toMatchObject({ code: 1 });
  });
});

describe('Kubernetes manifests (deploy/k8s/)', () => {
  const documents = ['redis.yaml', 'mcpx.yaml'].flatMap((f) => parseYamlDocuments(read(`deploy/k8s/${f}`)));
  // biome-ignore lint/suspicious/noExplicitAny: a manifest is read as the untyped tree it is.
  const find = (kind: string, name: string): any =>
    documents.find(
      (d) =>
        (d as { kind?: string; metadata?: { name?: string } }).kind === kind &&
        (d as { metadata: { name: string } }).metadata.name === name,
    );
  const deployment = find('Deployment', 'mcpx');
  const pod = deployment?.spec.template.spec;
  const container = pod?.containers.find((c: { name: string }) => c.name === 'mcpx');

  it('the kustomization lists every manifest', () => {
    const [kustomization] = parseYamlDocuments(read('deploy/k8s/kustomization.yaml')) as {
      resources: string[];
    }[];
    expect(kustomization?.resources.sort()).toEqual(['mcpx.yaml', 'redis.yaml']);
  });

  it('runs several instances, each as a user that is not root, with resources set', () => {
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
    expect(container.resources.requests.cpu).toBeDefined();
    expect(container.resources.limits.memory).toBeDefined();
    expect(deployment.spec.selector.matchLabels).toEqual(deployment.spec.template.metadata.labels);
  });

  it("passes flags mcpx serve accepts, its instance id from the pod's name, its secrets from a Secret", () => {
    const args = container.args as string[];
    expectAcceptedFlags(args);
    expect(flagValue(args, '--instance-id')).toBe('$(POD_NAME)');
    const podName = container.env.find((e: { name: string }) => e.name === 'POD_NAME');
    expect(podName.valueFrom.fieldRef.fieldPath).toBe('metadata.name');
    const secret = pod.volumes.find((v: { secret?: unknown }) => v.secret);
    const mount = container.volumeMounts.find((m: { name: string }) => m.name === secret.name);
    expect(flagValue(args, '--token-file')).toBe(`${mount.mountPath}/token`);
    // The state key is the copy the init container makes, owned by the instance's user alone.
    const copy = pod.initContainers[0];
    expect(copy.command.join(' ')).toContain(
      `umask 077 && cp ${mount.mountPath}/state.key ${flagValue(args, '--state-key-file')}`,
    );
    expect(copy.securityContext.allowPrivilegeEscalation).toBe(false);
  });

  it('shares its state through the Redis the manifests run', () => {
    const url = new URL(flagValue(container.args, '--state') as string);
    expect(url.protocol).toBe('redis:');
    const service = find('Service', url.hostname);
    expect(service.spec.ports.map((p: { port: number }) => p.port)).toContain(Number(url.port));
    const redis = find('Deployment', url.hostname);
    expect(redis.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    expect(redis.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
  });

  it('gives a stopping pod more time than its pause and its drain', () => {
    const drain = Number(flagValue(container.args, '--drain-timeout'));
    const pause = Number(container.lifecycle.preStop.exec.command.at(-1));
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(drain + pause);
  });

  it('exposes the port it serves on, through a Service that selects its pods', () => {
    const port = container.ports.find((p: { name: string }) => p.name === 'http');
    expect(String(port.containerPort)).toBe(flagValue(container.args, '--port'));
    const service = find('Service', 'mcpx');
    expect(service.spec.selector).toEqual(deployment.spec.template.metadata.labels);
    expect(service.spec.ports[0].targetPort).toBe('http');
  });

  it('probes endpoints the gateway answers: its arguments run by the built mcpx, /healthz and /readyz 200', async () => {
    const probes = [container.livenessProbe, container.readinessProbe, container.startupProbe];
    for (const probe of probes) expect(probe.httpGet.port).toBe('http');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    // The manifest's own arguments, with this machine's files, a loopback address, and a pod's name.
    const token = 'token-of-the-manifest-check-0123456789';
    await writeFile(join(world.dir, 'token'), token);
    await writeFile(join(world.dir, 'state.key'), randomBytes(32), { mode: 0o600 });
    const args = [...(container.args as string[])];
    const after = args.slice(args.indexOf('--http') + 1);
    const local = new Map([
      ['--host', '127.0.0.1'],
      ['--port', '0'],
      ['--token-file', join(world.dir, 'token')],
      ['--state-key-file', join(world.dir, 'state.key')],
      ['--instance-id', 'mcpx-7d9c8b5f4-x2kqz'],
    ]);
    const served: string[] = [];
    for (let i = 0; i < after.length; i += 2) {
      const flag = after[i] as string;
      // The shared store is its own check (it needs Redis); the rest run as the manifest gives them.
      if (STORE_FLAGS.has(flag)) continue;
      served.push(flag, local.get(flag) ?? (after[i + 1] as string));
    }
    const gateway = await world.serve(served);
    const base = gateway.url.replace(/\/mcp$/, '');
    for (const probe of probes) {
      await expect
        .poll(async () => (await fetch(`${base}${probe.httpGet.path}`)).status, { timeout: 15_000 })
        .toBe(200);
    }
    await world.stopAll();
  });
});
