# The Shower Beer app image: the Fastify server, the built web app and the
# migrations, production dependencies only, running as a non-root user.
# `npm run test:prod` (scripts/prod-image.ts) builds this file without Docker,
# stage by stage as written, and starts its CMD: change it and that check follows.

# Build tools are needed only when no prebuilt better-sqlite3 binary fits.
FROM node:22-bookworm-slim AS toolchain
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY server/package.json server/
COPY web/package.json web/

# 1. Everything, to build the web bundle and compile the server.
FROM toolchain AS build
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json ./
COPY server server
COPY web web
COPY migrations migrations
RUN npm run build

# 2. The server's production dependencies only, wherever npm puts them: the
#    lockfile nests some in server/node_modules (drizzle-orm among them), so the
#    runtime stage takes this stage's whole /app, not only /app/node_modules.
FROM toolchain AS deps
RUN npm ci --omit=dev --workspace=server --no-audit --no-fund \
 && npm cache clean --force

# 3. What runs.
FROM node:22-bookworm-slim
WORKDIR /app
COPY --from=deps /app ./
COPY --from=build /app/server/dist server/dist
COPY --from=build /app/web/dist web/dist
COPY migrations migrations
RUN mkdir -p /data && chown node:node /data
USER node
ENV HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 3000
# The slim image has no curl; node's fetch asks /readyz (database and storage).
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "server/dist/server.js"]
