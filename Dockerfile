# The local Environments API (`genv serve`) in a container, for machines without bubblewrap (macOS,
# Windows) and CI systems that run services as containers. README: "The emulator in a container".
#
#   docker build -t genv-emulator .
#   docker run --rm --security-opt seccomp=unconfined --security-opt systempaths=unconfined \
#     --pids-limit 512 -p 8765:8765 -v genv-data:/data -e GENV_API_KEY=my-key genv-emulator
#
# Works with the classic builder and with BuildKit (no Dockerfile features beyond both). BASE_IMAGE must
# be Debian bookworm with Node.js >= 20 and npm in /usr/local, as the official node images are;
# scripts/emulator-base-image makes one without a registry.
ARG BASE_IMAGE=node:22-bookworm-slim

# --- build: compile the TypeScript, keep the production dependencies and the emulator's -----------------
FROM ${BASE_IMAGE} AS build
# better-sqlite3 downloads a prebuilt binary; where it cannot (no route to GitHub, another libc or CPU) it
# compiles against this Node's own headers (npm_config_nodedir: no header download either).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
WORKDIR /src
COPY package.json package-lock.json ./
# EXTRA_CA_CERTS: PEM certificates npm must trust besides the usual ones (a TLS-inspecting proxy's CA); they
# stay in this stage, the image does not carry them.
ARG EXTRA_CA_CERTS=""
RUN if [ -n "$EXTRA_CA_CERTS" ]; then printf '%s\n' "$EXTRA_CA_CERTS" >/tmp/extra-ca.pem && export NODE_EXTRA_CA_CERTS=/tmp/extra-ca.pem; fi \
 && npm ci \
 && rm -f /tmp/extra-ca.pem
COPY . .
# The emulator's own packages are optional peer dependencies of the package (a provider-only install goes
# without them) and devDependencies of the checkout; here they are what the image runs, so they move to
# dependencies before the prune keeps exactly those (at the versions package-lock.json gives).
RUN npm run build \
 && node -e 'const fs = require("node:fs"); const p = JSON.parse(fs.readFileSync("package.json", "utf8")); \
      for (const name of Object.keys(p.peerDependenciesMeta)) { p.dependencies[name] = p.devDependencies[name]; delete p.devDependencies[name]; } \
      fs.writeFileSync("package.json", JSON.stringify(p, null, 2) + "\n");' \
 && npm prune --omit=dev && chmod 0755 dist/cli/main.js

# --- runtime --------------------------------------------------------------------------------------------
FROM ${BASE_IMAGE}
# What the sandbox runs with (emulator/sandbox/README.md): bubblewrap, socat (egress), git (repository
# sources), python3 (the file tools), curl (the health check); tini reaps what the sandboxes leave as PID 1.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap socat git python3 curl ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
# A non-root user: the emulator then runs bwrap as itself, which needs no capability in the container
# (as root it would need CAP_SYS_ADMIN for the sandbox's host view; see README). Not uid 1000 (`node` in
# the official images): without a pids cgroup in the container the sandbox bounds processes by
# RLIMIT_NPROC, which counts every process of the uid on a Linux host, where 1000 is the first person's.
RUN useradd --uid 10001 --user-group --create-home --shell /bin/sh genv \
 && mkdir -p /data && chown genv:genv /data
COPY --from=build /src/package.json /opt/genv/package.json
COPY --from=build /src/node_modules /opt/genv/node_modules
COPY --from=build /src/dist /opt/genv/dist
COPY scripts/container-healthcheck /usr/local/bin/genv-healthcheck
RUN ln -s /opt/genv/dist/cli/main.js /usr/local/bin/genv && chmod 0755 /usr/local/bin/genv-healthcheck
ENV NODE_ENV=production GENV_DATA_DIR=/data
USER 10001:10001
WORKDIR /data
VOLUME /data
EXPOSE 8765
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 CMD ["genv-healthcheck"]
ENTRYPOINT ["tini", "--", "genv"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8765"]
