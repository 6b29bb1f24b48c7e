import { spawn } from 'node:child_process';

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
      if (code !== 0) reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve({ ms, stdout });
    });
  });
}

/**
 * Alternate the commands `rounds` times (paired, so drift hits both) and return each one's median.
 * A command's `prepare()`, if any, runs untimed before each of its runs.
 */
export async function pairedMedians(commands, rounds) {
  const times = commands.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, c] of commands.entries()) {
      await c.prepare?.();
      times[i].push((await timed(c.command, c.args, c.env)).ms);
    }
  }
  return times.map(median);
}

/** Run a worker script that prints one JSON line; parse it. */
export async function worker(script, args, env) {
  const { stdout } = await timed(process.execPath, [script, ...args], env);
  return JSON.parse(stdout.trim().split('\n').at(-1));
}
