# syntax=docker/dockerfile:1
# mcpx serve --http as a container: docs/deploy-fleet.md (the image, the Kubernetes manifest in
# deploy/k8s/, health, readiness and drain). test/unit/deploy/recipe.test.ts checks this file.
#
#   docker build -t mcpx .                               # node and npx for the stdio servers
#   docker build -t mcpx --build-arg WITH_PYTHON=1 .     # python3 and uv/uvx too
#   docker run --rm -p 8080:8080 -v "$PWD/mcp.json:/etc/mcpx/mcp.json:ro" \
#     -v "$PWD/token:/run/secrets/mcpx/token:ro" mcpx

ARG NODE_VERSION=24

# --- build: the whole toolchain, then only the production dependencies kept ---
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# Scripts off: `prepare` would build before the sources are here (the build below runs it).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json rolldown.config.mjs ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# --- runtime: Node 24 slim, tini as PID 1, a user that is not root ---
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# The stdio servers' runtimes: node, npm and npx come with the base image (`npx -y <server>`).
# WITH_PYTHON=1 adds python3 and uv (`uvx <server>`) for Python servers.
ARG WITH_PYTHON=0
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini ca-certificates \
  && if [ "$WITH_PYTHON" = "1" ]; then \
       apt-get install -y --no-install-recommends python3 python3-venv python3-pip \
       && pip3 install --no-cache-dir --break-system-packages uv; \
     fi \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/mcpx
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
# The build leaves dist/ as it writes it (0644): npm makes a package's bin executable when it installs
# one, but nothing installs this copy, and tini execs `mcpx` ("exec mcpx failed: Permission denied").
RUN chmod 0755 /opt/mcpx/dist/bin/mcpx.cjs \
  && ln -s /opt/mcpx/dist/bin/mcpx.cjs /usr/local/bin/mcpx && mkdir -p /etc/mcpx

# The base image's `node` user (uid 1000): mcpx's state (~/.mcpx) and npx's cache (~/.npm) live
# in its home; the config and the secrets are mounted read-only.
USER node
WORKDIR /home/node
ENV NODE_ENV=production \
    MCPX_HOME=/home/node/.mcpx

EXPOSE 8080
# Liveness only (the process answers); Kubernetes asks /readyz for readiness (deploy/k8s/).
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# tini is PID 1: it passes SIGTERM to mcpx (which drains, then stops its stdio servers) and
# reaps what exits; node as PID 1 would not get the kernel's default signal handling.
ENTRYPOINT ["/usr/bin/tini", "--", "mcpx"]
# Every interface: a token is then required (mcpx refuses to start without one).
CMD ["--config", "/etc/mcpx/mcp.json", "serve", "--http", "--host", "0.0.0.0", "--port", "8080", \
     "--token-file", "/run/secrets/mcpx/token", "--drain-timeout", "10"]
