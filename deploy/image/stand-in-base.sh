#!/usr/bin/env bash
# A local stand-in for the official `node:24-bookworm-slim` image, for machines that reach Debian's
# mirror and the npm registry but no container registry (docs/deploy-fleet.md, "Building the image
# without a registry"). It is tagged docker.io/library/node:24-bookworm-slim so the shipped
# Dockerfile builds unchanged with `podman build --pull=never`.
#
# What it has, as the official image does: Debian 12 (bookworm), `node` in /usr/local/bin, npm and
# npx in /usr/local/lib/node_modules/npm, a `node` user and group (uid/gid 1000, home /home/node,
# shell /bin/bash), CMD ["node"].
# What differs: the root file system is debootstrap's `minbase` (not Docker's debian:bookworm-slim,
# so a few packages differ); node is the npm `node` package's official Linux binary (node24/ in this
# repository), npm is the machine's own npm; no yarn, no corepack, no docker-entrypoint.sh; and when
# NODE_EXTRA_CA_CERTS names a file, that file is copied in and named as npm's `cafile`
# (/usr/local/etc/npmrc), so npm and npx inside the image trust the certificate authorities this
# machine's network needs.
#
# Usage (root): deploy/image/stand-in-base.sh [TAG]   (podman, debootstrap; see test-image.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
tag="${1:-docker.io/library/node:24-bookworm-slim}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

node_bin="$PWD/node24/node_modules/node/bin/node"
if [ ! -x "$node_bin" ]; then
  npm install --prefix node24 --no-audit --no-fund --loglevel=error >/dev/null
fi
case "$("$node_bin" --version)" in
  v24.*) ;;
  *) echo "stand-in-base: $node_bin is not Node 24" >&2; exit 1 ;;
esac
npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
[ -f "$npm_dir/package.json" ] || { echo "stand-in-base: no npm package at $npm_dir" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log" >&2; exit 1; }

install -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules"
cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin

changes=(--change 'CMD ["node"]' --change 'ENV NODE_VERSION='"$("$node_bin" --version | tr -d v)")
# npm's global config (beside the node it runs on), not an environment variable: mcpx starts its
# stdio servers (`npx -y …`) with a minimal environment, which would drop NODE_EXTRA_CA_CERTS.
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  install -m 0644 "$NODE_EXTRA_CA_CERTS" "$rootfs/usr/local/share/stand-in-ca-certificates.crt"
  mkdir -p "$rootfs/usr/local/etc"
  echo 'cafile=/usr/local/share/stand-in-ca-certificates.crt' >"$rootfs/usr/local/etc/npmrc"
fi
tar -C "$rootfs" -c . | podman import --quiet "${changes[@]}" - "$tag" >/dev/null
echo "stand-in-base: $tag (Debian $(cat "$rootfs/etc/debian_version"), node $("$node_bin" --version), npm $(node "$npm_dir/bin/npm-cli.js" --version))"
