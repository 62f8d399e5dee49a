# slopgate GitHub App (and `slopgate worker`): Node 22 LTS, git, and the toolchains the test gate runs
# projects with: Python 3.10-3.14 (pytest), Go, Rust (cargo, rustfmt, clippy), a JDK 17 with Maven, and
# Node (vitest/jest/node --test from the repository itself).
# Build: docker build -t slopgate .
# Run:   docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#          --security-opt systempaths=unconfined --env-file .env -p 3000:3000 -v slopgate:/var/lib/slopgate slopgate

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
# git for the mirrors; bubblewrap is the test sandbox (util-linux gives prlimit for its fallback limits);
# bash closes inherited fds before the sandbox starts; ca-certificates for HTTPS to GitHub and the
# registries; tini reaps what is left. The test gate's toolchains: Debian's Python 3.11 with pytest,
# a JDK with Maven, and gcc for Rust's linker and Python's C extensions; the rest below.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates python3 python3-venv python3-pytest \
      openjdk-17-jdk-headless maven gcc libc6-dev util-linux bubblewrap bash tini \
 && rm -rf /var/lib/apt/lists/*
# Go (with gofmt): a recent release; a module whose go.mod asks for a newer Go gets that toolchain from
# the Go module proxy (GOTOOLCHAIN=auto), through the sandbox's egress proxy like any download.
COPY --from=golang:1.25-bookworm /usr/local/go /usr/local/go
# Rust through rustup, with rustfmt (G16's format check) and clippy (G16's lint check). Under /usr, which
# the sandbox mounts read-only.
COPY --from=rust:1-slim-bookworm /usr/local/rustup /usr/local/rustup
COPY --from=rust:1-slim-bookworm /usr/local/cargo /usr/local/cargo
# More Python versions, for projects that require one (requires-python, .python-version): relocatable
# builds installed with uv, each as /usr/local/bin/python3.X, where the test gate looks for them.
COPY --from=ghcr.io/astral-sh/uv:0.9 /uv /usr/local/bin/uv
ENV PATH=/usr/local/cargo/bin:/usr/local/go/bin:$PATH \
    RUSTUP_HOME=/usr/local/rustup \
    CARGO_HOME=/usr/local/cargo \
    GOTOOLCHAIN=auto \
    NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    LOG_FORMAT=json \
    SLOPGATE_WORKDIR=/var/lib/slopgate
RUN rustup component add rustfmt clippy \
 && UV_PYTHON_INSTALL_DIR=/usr/local/lib/uv-python UV_PYTHON_BIN_DIR=/usr/local/bin uv python install 3.10 3.12 3.13 3.14 \
 && rm -rf /root/.cache \
 && go version && cargo clippy --version && rustfmt --version && mvn -v && python3.12 --version

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY schemas ./schemas
COPY app.yml ./
COPY docker/sandbox-check.sh /usr/local/bin/slopgate-sandbox-check

# Never run as root: the test gate executes code from pull requests, each run in a bubblewrap sandbox
# (user, pid, net, mount, ipc, uts and cgroup namespaces). bwrap is not setuid here; it needs
# unprivileged user namespaces and a fresh /proc, which Docker's defaults forbid. Run with
#   docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#              --security-opt systempaths=unconfined ...
# Without them the sandbox cannot start, and with `tests.isolation: required` (the default) every PR
# with tests would be blocked as "not about your code"; so the entry (docker/sandbox-check.sh) tries
# a sandbox first and, when it fails, names the missing option in one line and exits 2.
RUN useradd --create-home --uid 10001 slopgate \
 && mkdir -p /var/lib/slopgate \
 && chown slopgate:slopgate /var/lib/slopgate
USER slopgate
VOLUME ["/var/lib/slopgate"]
EXPOSE 3000

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"

ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/slopgate-sandbox-check"]
# `npm start` would rebuild (needs dev dependencies); the image runs the compiled server directly.
CMD ["node", "dist/app-server.js"]
