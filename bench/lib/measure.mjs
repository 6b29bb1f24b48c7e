import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * CPU time (ms) of this process's children that have been waited for, with theirs (Linux's
 * cutime + cstime, 10 ms ticks): read before and after a run, the difference is that run's CPU,
 * its server included. A figure that holds on a loaded machine where wall time does not.
 * Undefined where /proc is not there.
 */
function childrenCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of stat(5), counted from the state (field 3) at index 0.
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Run a command to completion; resolve with its wall time (ms) and stdout.
 * `env` is the whole environment: the bench controls it for every process it
 * times (no NODE_EXTRA_CA_CERTS, which costs each Node start ~110 ms here).
 */
export function timed(command, args, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const cpuBefore = childrenCpuMs();
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const cpuAfter = childrenCpuMs();
      const cpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
      if (code !== 0) reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve({ ms, cpuMs, stdout });
    });
  });
}

/**
 * Alternate the commands `rounds` times (paired, so drift hits both) and return each one's median.
 * A command's `prepare()`, if any, runs untimed before each of its runs.
 */
export async function pairedMedians(commands, rounds) {
  return (await pairedMediansWithCpu(commands, rounds)).map((m) => m.ms);
}

/**
 * As {@link pairedMedians}, each command's median wall time (`ms`) and CPU time (`cpuMs`, its
 * process and the children it waited for: undefined without /proc). With `rotate`, the
 * commands' order turns round by round, so none always runs right after the same other.
 */
export async function pairedMediansWithCpu(commands, rounds, { rotate = false } = {}) {
  const times = commands.map(() => []);
  const cpu = commands.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < commands.length; k++) {
      const i = rotate ? (k + round) % commands.length : k;
      const c = commands[i];
      await c.prepare?.();
      const run = await timed(c.command, c.args, c.env);
      times[i].push(run.ms);
      if (run.cpuMs !== undefined) cpu[i].push(run.cpuMs);
    }
  }
  return times.map((t, i) => ({ ms: median(t), cpuMs: cpu[i].length ? median(cpu[i]) : undefined }));
}

/** Run a worker script that prints one JSON line; parse it. */
export async function worker(script, args, env) {
  const { stdout } = await timed(process.execPath, [script, ...args], env);
  return JSON.parse(stdout.trim().split('\n').at(-1));
}
