# shelfwatch worker / simulator image. Written carefully but not built here (no Docker engine on the
# machines this project is built on); test/cli/build.test.ts checks the build step and entry point.

# Build: compile the TypeScript sources (typescript is a dev dependency).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
RUN npm ci --no-audit --no-fund
COPY src ./src
COPY workers ./workers
RUN npm run build

# Run: compiled JavaScript on production dependencies only. Plain node instead of the tsx loader
# starts about 35 MiB smaller; the heap cap makes V8 give back the heap that parsing big answers
# grows (docs/operations.md, "Memory"). Raise it if a worker logs heap-limit crashes.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
ENV NODE_OPTIONS="--max-old-space-size=192"
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY examples ./examples
USER node
ENTRYPOINT ["node", "dist/src/cli/main.js"]
CMD ["run"]
