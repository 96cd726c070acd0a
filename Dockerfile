# syntax=docker/dockerfile:1
#
# One image for the api, the migrations and the demo seed (see docker-compose.yml):
#   docker run IMAGE                                     -> the api (node apps/api/dist/main.js); with
#                                                           no DATABASE_URL, the embedded demo database
#                                                           in /app/.data (a volume there keeps it)
#   docker run IMAGE pnpm db:migrate                     -> the migrations (packages/db/dist/bin/migrate.js)
#   docker run IMAGE node apps/seed/dist/cli.js --demo   -> demo data
#
# Why not `pnpm deploy`: it packs one package, but the runtime needs two apps, the root-level
# prisma/ folder and the root `db:migrate` script. Why not `pnpm prune --prod`: pnpm does not
# prune workspaces. So a separate stage installs the production dependencies from the same
# lockfile; `pnpm db:migrate` runs the compiled migration runner of @community/db over node-postgres,
# and the Prisma CLI (a production dependency there) can read `prisma migrate status` where it may
# download its schema engine (prisma.config.ts is loaded by the CLI itself, no TypeScript runtime
# needed; docs/database.md, "Migrations").
#
# Checked without a Docker engine by test/src/dockerfile.spec.ts (what is copied, built and run)
# and test/src/production-smoke.e2e-spec.ts (migrate, seed and CMD against PostgreSQL); keep COPY
# sources literal (no globs) so that the first can follow them.

# The one external image. Node 24 is the LTS line the project targets and tests (.nvmrc). To pin it,
# replace this line's image with its digest form, node:24-bookworm-slim@sha256:<digest>; how to
# read the digest and keep it current: docs/deployment.md, "Pinning the base image".
FROM node:24-bookworm-slim AS base
# pnpm exactly as pinned by package.json "packageManager", through npm: corepack fails its
# signature check on some networks, npm does not.
RUN npm install -g pnpm@10.34.9
WORKDIR /app
# PNPM_HOME puts pnpm's store at /pnpm/store, the cache mount of the install steps below.
ENV CI=true \
    PNPM_HOME=/pnpm \
    TURBO_TELEMETRY_DISABLED=1 \
    CHECKPOINT_DISABLE=1 \
    PRISMA_HIDE_UPDATE_MESSAGE=1 \
    npm_config_update_notifier=false

# Manifests only: the install layers below are reused until a manifest or the lockfile changes.
FROM base AS manifests
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
COPY apps/api/package.json apps/api/
COPY apps/cli/package.json apps/cli/
COPY apps/seed/package.json apps/seed/
COPY packages/client/package.json packages/client/
COPY packages/db/package.json packages/db/
COPY packages/fixtures/package.json packages/fixtures/
COPY packages/domain/package.json packages/domain/
COPY bench/package.json bench/
COPY ops/scale-check/package.json ops/scale-check/

FROM manifests AS build
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store pnpm install --frozen-lockfile
COPY . .
# turbo: prisma generate (packages/db), then SWC for every package (tsc for the client), in dependency order.
RUN pnpm build

FROM manifests AS prod-deps
RUN --mount=type=cache,id=pnpm-store,target=/pnpm/store pnpm install --frozen-lockfile --prod

# Keeps pnpm from `base` so that `pnpm db:migrate` works as documented in the README.
FROM base AS runtime
# HOST: every interface, so that a published port reaches the api (alone, the embedded demo listens on loopback).
# MALLOC_ARENA_MAX: glibc gives each thread that allocates an arena of its own (up to 8 per core);
# V8's and libuv's threads held about 29 MB of them under the mix bench. Two arenas took the api's
# peak RSS down 5-15 MB with CPU per request unchanged (bench/README.md, "Heap settings against the
# noise"); the bench gives every server the image's ENV, as it gives them its node flags.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    MALLOC_ARENA_MAX=2
# Production node_modules and manifests, then the compiled output (the generated Prisma client
# is TypeScript compiled into packages/db/dist). Files stay owned by root: the app only reads them.
COPY --from=prod-deps /app ./
COPY --from=build /app/packages/domain/dist packages/domain/dist
COPY --from=build /app/packages/db/dist packages/db/dist
COPY --from=build /app/packages/db/prisma.config.ts packages/db/
COPY --from=build /app/packages/fixtures/dist packages/fixtures/dist
COPY --from=build /app/prisma prisma
COPY --from=build /app/apps/seed/dist apps/seed/dist
COPY --from=build /app/apps/api/dist apps/api/dist
# The embedded database's default data directory (EMBEDDED_DATA_DIR=.data/pglite) is the only
# place the api writes to; uid 1000 is the image's `node` user. A named volume mounted on /app/.data
# starts with this owner.
RUN mkdir .data && chown 1000:1000 .data
USER node
EXPOSE 3000
# Ready = the database answers and every migration is applied. The image has no curl; PORT is the
# image's ENV or the one given to `docker run`. The first embedded start migrates and seeds (15-30 s).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The api keeps about 40 MB of live heap; left alone, V8 lets garbage pile up to a limit sized from
# the host's memory before a full collection. Measured under the full mix bench (bench/README.md,
# "Memory"): a 16 MB semi-space keeps the api's peak RSS at 236-264 MB (page cache full) where
# 32 MB gave 270 MB, with the api's throughput and CPU per request within the rounds' spread. Only
# the api gets them: the seed CLI may need more heap for a large fixture file.
CMD ["node", "--max-old-space-size=192", "--max-semi-space-size=16", "apps/api/dist/main.js"]
