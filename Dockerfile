# syntax=docker/dockerfile:1
# Multi-stage image of the service (see README, "Production install"):
#   podman build -t charging-price-service .      (or docker build)
#   podman run -p 8080:8080 -v cps-data:/data --read-only --tmpfs /tmp charging-price-service
# The service writes only to /data (DATA_DIR) and /tmp: the root file system can be read-only (D232).
# Build stage: npm ci builds dist/ (the prepare script), the default snapshot is built from
# snapshots/sources, then dev dependencies and the HTTP core's binaries for other platforms are
# removed. Run stage: only the runtime tree, as the unprivileged `node` user.
# The Node base image: Node 24 (LTS) on Debian 13, whose glibc (2.41) the HTTP core's Node 24
# binary needs; SQLite through Node's own node:sqlite (D281), so nothing is compiled and the
# optional better-sqlite3 (Node 20 only) is left out. A deployment that pulls from a registry pins
# the base by digest (D232), e.g.
#   --build-arg NODE_IMAGE=docker.io/library/node:24-trixie-slim@sha256:<digest>
ARG NODE_IMAGE=docker.io/library/node:24-trixie-slim
FROM ${NODE_IMAGE} AS build
# Build-only settings for networks without nodejs.org or behind a TLS-inspecting proxy (unset by
# default): npm_config_nodedir=/usr/local takes the Node headers from the base image instead of
# downloading them, NODE_EXTRA_CA_CERTS names a mounted CA bundle, e.g.
#   podman build -v /etc/ssl/certs:/etc/ssl/host-certs:ro \
#     --build-arg NODE_EXTRA_CA_CERTS=/etc/ssl/host-certs/ca-certificates.crt --build-arg npm_config_nodedir=/usr/local .
ARG NODE_EXTRA_CA_CERTS
ARG npm_config_nodedir
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workers ./workers
COPY snapshots ./snapshots
RUN npm ci --no-audit --no-fund --omit=optional \
 && node dist/snapshots/build.js \
 && npm prune --omit=dev --no-audit --no-fund \
 && npm run prune:uws

FROM ${NODE_IMAGE}
ARG NODE_IMAGE
# OCI annotations (D232); VERSION and REVISION from the build, e.g.
#   podman build --build-arg VERSION=$(node -p "require('./package.json').version") --build-arg REVISION=$(git rev-parse HEAD) .
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="charging-price-service" \
      org.opencontainers.image.description="EV charging price API: station search, charge prices, OCPI CDR costs, map tiles" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.base.name="${NODE_IMAGE}"
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/snapshots/default.sqlite /app/snapshots/default.sqlite
COPY --from=build /app/snapshots/sources/ATTRIBUTION.md /app/snapshots/sources/ATTRIBUTION.md
COPY LICENSE README.md ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["node", "dist/src/main.js"]
