# syntax=docker/dockerfile:1
# The Site Portal image (docs/operations.md "Container"). Two stages: `build` installs every
# dependency and builds; the runtime stage holds the build, the migrations and the production
# dependencies only, and runs as the image's unprivileged `node` user. Without a container builder,
# `node scripts/check-image.mjs` performs the runtime stage's steps on the host (CI does).

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-bookworm-slim
# HOST 0.0.0.0: reachable from outside the container. DATA_DIR: the embedded database, file blobs
# and the generated session secret; mount a volume there (PGlite), or set DATABASE_URL,
# BLOB_STORE=s3 and SESSION_SECRET and it holds nothing that matters.
# SEED=false: the demo accounts have published passwords, and a container is reached from elsewhere.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data SEED=false
WORKDIR /app
COPY package.json package-lock.json ./
# No production dependency has an install script, so none runs (scripts/check-image.mjs proves the
# server starts with exactly these packages).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && rm -rf /root/.npm
COPY --from=build /app/build ./build
COPY server/db/migrations ./server/db/migrations
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
# Liveness (the process answers); the slim image has no curl. The start period covers a first start
# on a new PGlite data folder, which builds it (tens of seconds).
HEALTHCHECK --interval=15s --timeout=5s --start-period=120s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/api/health/live`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains (docs/operations.md "Stop"); give the container at least SHUTDOWN_DEADLINE_SECONDS
# (25) to stop, e.g. `docker stop --time 30` or stop_grace_period: 30s. The node flag: the server's
# young generation (docs/operations.md "Node's memory flags").
CMD ["node", "--max-semi-space-size=64", "build/node/index.js"]
