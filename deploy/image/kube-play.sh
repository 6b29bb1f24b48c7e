#!/usr/bin/env bash
# deploy/k8s run for real without a cluster: `podman kube play` of the manifests that
# `kubectl kustomize deploy/k8s` renders, on the image the shipped Dockerfile builds (on the
# stand-in base, stand-in-base.sh) and a stand-in Redis (Debian's redis-server). Three mcpx pods
# and the Redis pod; each pod's /healthz and /readyz; a consent round begun on one instance and
# answered on another, then a call through each (fleet-call.mjs); a pod stopped (SIGTERM drains).
# Everything it makes (store, images, pods, network) is removed at the end.
#
# A manual check (root; podman, runc, debootstrap, kubectl, python3-yaml; a few minutes), not a CI
# step: podman 4.3 (Debian 12) needs the workarounds below, each a podman limit, not the manifest's:
#   - no Service: the instances reach Redis by its pod's name (redis-pod-0), not `redis`;
#   - `replicas` is ignored (one pod per Deployment): the mcpx Deployment is played three times,
#     as mcpx-a, mcpx-b and mcpx-c, each with a hostPort on 127.0.0.1;
#   - `$(POD_NAME)` in args is not expanded: each copy gets its name as --instance-id;
#   - a secret volume without `optional` crashes kube play (nil pointer): `optional: false` is added;
#   - a Secret's files hold its base64 `data` undecoded: the token the instances take is that text;
#   - an init container sometimes is still running when kube play removes it ("failed to remove
#     once init container"): it is then removed by hand once it has exited (else the pod's
#     restartPolicy reruns it forever), and the pod's mcpx container started by hand;
#   - a containerPort is published on every host interface: each gets a hostPort on 127.0.0.1;
#   - preStop hooks and httpGet probes are not run (a probe becomes a `curl` health check, which
#     the image lacks, on port 0 for a named port), so readiness is asked here with curl.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)

work="$(mktemp -d)"
net="mcpx-kube-$$"
export CONTAINERS_CONF="$work/containers.conf" CONTAINERS_STORAGE_CONF="$work/storage.conf"
# runc (crun 1.8 refuses a hybrid cgroup layout); limits a process without CAP_SYS_RESOURCE may set.
cat >"$CONTAINERS_CONF" <<CONF
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=4096:4096"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
cat >"$CONTAINERS_STORAGE_CONF" <<CONF
[storage]
driver = "overlay"
graphroot = "$work/store"
runroot = "$work/run"
CONF
cleanup() {
  podman pod rm --all --force --time 0 >/dev/null 2>&1 || true
  podman rmi --all --force >/dev/null 2>&1 || true
  podman secret rm mcpx >/dev/null 2>&1 || true
  podman network rm --force "$net" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "kube-play: failed (exit $?) at line $LINENO: $BASH_COMMAND" >&2; cat "$work/play.log" >&2 2>/dev/null || true' ERR
say() { echo "kube-play: $* ($(($(date +%s) - started)) s)"; }

deploy/image/stand-in-base.sh >/dev/null
podman build --quiet --pull=never --network=host --format docker -t localhost/mcpx:latest . >/dev/null
mkdir "$work/redis"
cat >"$work/redis/Containerfile" <<'CONF'
FROM docker.io/library/node:24-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends redis-server && rm -rf /var/lib/apt/lists/*
# As the official image: protected mode off (the pod network is the boundary).
ENTRYPOINT ["redis-server", "--protected-mode", "no"]
CONF
podman build --quiet --pull=never --network=host -t docker.io/library/redis:7-alpine "$work/redis" >/dev/null
say "images built"

token="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
printf %s "$token" | base64 -w0 >"$work/token"
cat >"$work/secret.yaml" <<CONF
apiVersion: v1
kind: Secret
metadata:
  name: mcpx
data:
  token: $(cat "$work/token")
  state.key: $(head -c 32 /dev/urandom | base64 -w0)
CONF
kubectl kustomize deploy/k8s >"$work/rendered.yaml"
python3 - "$work" <<'PY'
import sys, yaml
work = sys.argv[1]
docs = [d for d in yaml.safe_load_all(open(f"{work}/rendered.yaml")) if d]
config = next(d for d in docs if d["kind"] == "ConfigMap")
for d in docs:
    if d["kind"] != "Deployment":
        continue
    if d["metadata"]["name"] == "redis":
        # podman publishes a containerPort on every host interface: loopback only, a free port.
        d["spec"]["template"]["spec"]["containers"][0]["ports"][0].update(hostPort=18180, hostIP="127.0.0.1")
        yaml.safe_dump(d, open(f"{work}/redis.yaml", "w"), sort_keys=False)
        continue
    for name, port in (("mcpx-a", 18181), ("mcpx-b", 18182), ("mcpx-c", 18183)):
        r = yaml.safe_load(yaml.safe_dump(d))
        r["metadata"]["name"] = name
        r["spec"]["replicas"] = 1
        pod = r["spec"]["template"]["spec"]
        for volume in pod["volumes"]:
            if "secret" in volume:
                volume["secret"]["optional"] = False
        c = next(c for c in pod["containers"] if c["name"] == "mcpx")
        c["args"] = [name if a == "$(POD_NAME)" else a.replace("redis://redis:", "redis://redis-pod-0:") for a in c["args"]]
        c["ports"][0].update(hostPort=port, hostIP="127.0.0.1")
        yaml.safe_dump_all([config, r], open(f"{work}/{name}.yaml", "w"), sort_keys=False)
PY

podman network create "$net" >/dev/null
podman kube play --network "$net" "$work/secret.yaml" >/dev/null
podman kube play --network "$net" "$work/redis.yaml" >/dev/null 2>"$work/play.log"
for name in mcpx-a mcpx-b mcpx-c; do
  if ! podman kube play --network "$net" "$work/$name.yaml" >/dev/null 2>>"$work/play.log"; then
    grep -q 'failed to remove once init container' "$work/play.log" || { cat "$work/play.log" >&2; exit 1; }
    # Left in the pod, the init container would be restarted forever (the pod's restartPolicy).
    podman wait --condition exited "$name-pod-0-state-key" >/dev/null 2>&1 || true
    podman rm --force --time 0 "$name-pod-0-state-key" >/dev/null 2>&1 || true
    podman start "$name-pod-0-mcpx" >/dev/null 2>&1
  fi
done
say "pods: $(podman pod ps --format '{{.Name}}={{.Status}}' | sort | tr '\n' ' ')"

urls=()
for port in 18181 18182 18183; do
  for _ in $(seq 1 240); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ] && break
    sleep 0.5
  done
  echo "  127.0.0.1:$port /healthz $(curl -s "http://127.0.0.1:$port/healthz") /readyz $(curl -s "http://127.0.0.1:$port/readyz")"
  urls+=("http://127.0.0.1:$port/mcp")
done
for name in mcpx-a mcpx-b mcpx-c; do
  echo "  $name: $(podman exec "$name-pod-0-mcpx" id -u 2>/dev/null), read-only root: $(podman inspect --format '{{.HostConfig.ReadonlyRootfs}}' "$name-pod-0-mcpx"), state key $(podman exec "$name-pod-0-mcpx" stat -c '%U %a' /run/mcpx/state.key 2>/dev/null)"
done
node deploy/image/fleet-call.mjs "$work/token" "${urls[@]}"

t0=$(date +%s%N)
podman stop --time 40 mcpx-c-pod-0-mcpx >/dev/null 2>&1
echo "  mcpx-c stopped (SIGTERM) in $((($(date +%s%N) - t0) / 1000000)) ms, exit $(podman inspect --format '{{.State.ExitCode}}' mcpx-c-pod-0-mcpx)"
[ "$(podman inspect --format '{{.State.ExitCode}}' mcpx-c-pod-0-mcpx)" = 0 ]
say "done"
