# shelfwatch worker / simulator image: `docker compose up` builds it once for both services.
# Not built on the machines this project is developed on (no Docker engine there): hadolint rules
# and the layout are checked by test/app/dockerfile.test.ts, the build step and the entry point by
# test/cli/build.test.ts, and the production node_modules by test/app/production-deps.test.ts.
#
# Node 24 is an LTS line supported until 2028-04-30 (Node 20 reached end of life on 2026-04-30); every runtime
# dependency supports it (their `engines`: undici 7 >= 20.18.1, commander 14 >= 20, nodemailer 10 >= 20).
ARG NODE_IMAGE=node:24-bookworm-slim

# 1. Compile the TypeScript sources (typescript is a dev dependency).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workers ./workers
RUN npm run build

# 2. Production dependencies only: no tsx, typescript, smtp-server (the demo's capture) or
#    pino-pretty (a terminal gets JSON logs instead).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# 3. Run: compiled JavaScript with plain node, about 35 MiB smaller than the tsx loader; the heap
#    cap makes V8 give back the heap that parsing big answers grows (docs/operations.md, "Memory").
#    Raise it if a worker logs heap-limit crashes.
FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-old-space-size=192
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY examples ./examples
# The code stays root's (read-only to the process); /app itself belongs to `node`, so relative
# paths in a config (an outbox channel's folder, `digest --out`) can be written, and /app/data is
# the place for a volume.
RUN mkdir /app/data && chown node:node /app /app/data
USER node
EXPOSE 9464
# /healthz of the ops server (server.port in the config); override the URL for another port.
# Slim images have no curl: node's fetch does it.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.SHELFWATCH_HEALTHCHECK_URL || 'http://127.0.0.1:9464/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/src/cli/main.js"]
CMD ["run"]
