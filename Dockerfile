# scrapeform as a small, non-root image, for drift checks on a scheduler (docs/drift.md).
#   docker build -t scrapeform .
#   docker run --rm -e SCRAPERAPI_API_KEY -e SCRAPEFORM_STATE -v "$PWD:/work" scrapeform drift
#
# Two stages: `prepare` builds dist/ with TypeScript and bundles the CLI with rolldown, devDependencies, so the build stage installs everything and the
# runtime stage installs only the production dependencies (npm ci --omit=dev, scripts off so prepare does not run).
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json rolldown.config.js ./
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /src/dist ./dist
COPY schemas ./schemas
COPY examples ./examples
COPY emulator-site ./emulator-site
# The image's own unprivileged user; manifests are mounted (or cloned) at /work.
USER node
WORKDIR /work
# /healthz and /metrics of `scrapeform watch --listen 0.0.0.0:9464`.
EXPOSE 9464
ENTRYPOINT ["node", "/app/dist/cli/bin.cjs"]
CMD ["--help"]
