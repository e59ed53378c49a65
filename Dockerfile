# EdgeClub as a container (docs/decisions/018-production-build.md; README "Operate").
#   docker build -t edgeclub .
#   docker run -p 3000:3000 -e JWT_SECRET=... -v edgeclub-data:/data edgeclub
# The build stage compiles everything production runs; the final stage holds the build output and
# the production dependencies only, and runs it as an unprivileged user with plain node.
# No container engine runs on the project's own machines: apps/api/test/container.test.ts performs
# the production stages' steps in a scratch directory and starts the result.

ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/shared/package.json packages/shared/
COPY packages/emulator/package.json packages/emulator/
COPY apps/api/package.json apps/api/
COPY apps/web/package.json apps/web/
COPY e2e/package.json e2e/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim AS production-deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/shared/package.json packages/shared/
COPY packages/emulator/package.json packages/emulator/
COPY apps/api/package.json apps/api/
COPY apps/web/package.json apps/web/
COPY e2e/package.json e2e/
RUN npm ci --omit=dev --workspace apps/api --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim AS production
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=8 \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=production-deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY apps/api/package.json apps/api/
COPY packages/shared/package.json packages/shared/
COPY scripts/run.mjs scripts/
COPY --from=build /app/apps/api/dist apps/api/dist
COPY --from=build /app/apps/web/build/client apps/web/build/client
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["node", "apps/api/dist/server.js"]
