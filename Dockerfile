# shelfwatch worker / simulator image. Runs the TypeScript sources through tsx (no build step).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY workers ./workers
COPY examples ./examples
USER node
ENTRYPOINT ["node", "bin/shelfwatch.mjs"]
CMD ["run"]
