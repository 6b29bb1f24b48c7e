#!/usr/bin/env python3
"""Paired cold calls of several builds, CPU to the microsecond.

The bench's CPU figures come from /proc's children's times, in 10 ms ticks: a median of them
cannot tell builds 1-2% apart. Node cannot read a child's rusage; wait4 can. Each round runs
every build once (the order rotated), `mcpx call bench.echo message=hi` to the minimal server on
the given Node, and takes the CPU (user + system) of the call and of the server it reaped, and
the wall time. Prints medians, means and the median of the per-round ratios to the first build.

  python3 bench/lib/paired-cpu.py ROUNDS NODE NAME=DIR [NAME=DIR ...]

DIR is a built checkout (its dist/bin/mcpx.cjs is run); each build has its own MCPX_HOME (its
own era and compile caches), filled by two untimed calls first, as a user's every-day call finds
them. The daemon is off.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

rounds, node = int(sys.argv[1]), sys.argv[2]
builds = [(name, os.path.join(d, 'dist/bin/mcpx.cjs')) for name, d in (a.split('=', 1) for a in sys.argv[3:])]
server = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'raw-server.mjs')
work = tempfile.mkdtemp(prefix='mcpx-paired-cpu-')
config = os.path.join(work, 'minimal.json')
with open(config, 'w') as f:
    json.dump({'mcpServers': {'bench': {'command': node, 'args': [server]}}}, f)


def call(name, cli):
    env = dict(os.environ, MCPX_HOME=os.path.join(work, name), MCPX_DAEMON='off')
    started = time.monotonic()
    child = subprocess.Popen([node, cli, '--config', config, 'call', 'bench.echo', 'message=hi'],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = child.stdout.read(), child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = 0  # reaped here, not by Popen
    wall = (time.monotonic() - started) * 1000
    if out != b'hi\n' or status != 0:
        sys.exit(f'{name}: exit status {status}, stdout {out!r}, stderr {err!r}')
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


for name, cli in builds:
    call(name, cli)
    call(name, cli)
runs = {name: [] for name, _ in builds}
for r in range(rounds):
    k = r % len(builds)
    for name, cli in builds[k:] + builds[:k]:
        runs[name].append(call(name, cli))
first = builds[0][0]
print(f'{os.path.basename(node)} {subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()}, '
      f'{rounds} rounds, load average {os.getloadavg()[0]:.1f} at the end')
for name, _ in builds:
    wall, cpu = [w for w, _ in runs[name]], [c for _, c in runs[name]]
    by_round = list(zip(runs[name], runs[first]))
    print(f'{name:12} wall {statistics.median(wall):6.1f} ms  CPU median {statistics.median(cpu):6.1f} '
          f'mean {statistics.mean(cpu):6.1f} ms  ÷ {first}: wall {statistics.median(a[0] / b[0] for a, b in by_round):.3f} '
          f'CPU {statistics.median(a[1] / b[1] for a, b in by_round):.3f}')
