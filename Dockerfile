# slopgate GitHub App (and `slopgate worker`): Node 22 LTS, git, and the test toolchains the test gate
# supports in this image: Python (pytest), Go, and Node (vitest/jest/node --test from the repo itself).
# Build: docker build -t slopgate .   Run: docker run --env-file .env -p 3000:3000 slopgate

# --- build: compile TypeScript (and bundle the CLI) with the dev dependencies ---
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
# build/cli.mjs bundles the `slopgate` command (dist/bin) after tsc.
COPY build ./build
COPY src ./src
COPY schemas ./schemas
RUN npm run build

# --- runtime ---
FROM node:22-bookworm-slim
# git for the mirrors; python3 + pytest and Go for the test gate (Go's gofmt and rustfmt for G16's format
# checks); bubblewrap is the test sandbox
# (util-linux gives prlimit for its fallback limits); bash closes inherited fds before the sandbox
# starts; ca-certificates for HTTPS to GitHub; tini reaps what is left.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates python3 python3-pytest rustfmt util-linux bubblewrap bash tini \
 && rm -rf /var/lib/apt/lists/*
COPY --from=golang:1.22-bookworm /usr/local/go /usr/local/go
ENV PATH=/usr/local/go/bin:$PATH \
    NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    LOG_FORMAT=json \
    SLOPGATE_WORKDIR=/var/lib/slopgate

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY schemas ./schemas
COPY app.yml ./

# Never run as root: the test gate executes code from pull requests, each run in a bubblewrap sandbox
# (user, pid, net, mount, ipc, uts and cgroup namespaces). bwrap is not setuid here; it needs
# unprivileged user namespaces and a fresh /proc, which Docker's defaults forbid. Run with
#   docker run --security-opt seccomp=unconfined --security-opt systempaths=unconfined \
#              [--security-opt apparmor=unconfined  on hosts whose AppArmor restricts user namespaces] ...
# Without them G8 is skipped with the reason ("tests not run: the sandbox cannot be established ...").
RUN useradd --create-home --uid 10001 slopgate \
 && mkdir -p /var/lib/slopgate \
 && chown slopgate:slopgate /var/lib/slopgate
USER slopgate
VOLUME ["/var/lib/slopgate"]
EXPOSE 3000

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"

ENTRYPOINT ["/usr/bin/tini", "--"]
# `npm start` would rebuild (needs dev dependencies); the image runs the compiled server directly.
CMD ["node", "dist/app-server.js"]
