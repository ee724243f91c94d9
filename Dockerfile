# The image the Helm chart runs: ghcr.io/forkspacer/module-admission:<appVersion>.
#   docker build -t ghcr.io/forkspacer/module-admission:0.1.0 .

# Build: compile TypeScript, then keep only production dependencies.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: the runtime needs none, and the dev tools' ones (helm extraction) are for tests.
RUN npm ci --ignore-scripts
COPY tsconfig.json ./
COPY src ./src
COPY schemas ./schemas
COPY charts/module-admission/files/crds ./charts/module-admission/files/crds
RUN npm run build && npm prune --omit=dev --ignore-scripts

# Runtime: distroless Node.js, no shell or package manager, uid 65532 (the chart's runAsUser).
FROM gcr.io/distroless/nodejs20-debian12:nonroot
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/schemas ./schemas
# install-crds applies these generated CRDs.
COPY --from=build /app/charts/module-admission/files/crds ./charts/module-admission/files/crds
USER 65532:65532
EXPOSE 8443 8080
ENTRYPOINT ["/nodejs/bin/node", "dist/cli/main.js"]
CMD ["serve"]
