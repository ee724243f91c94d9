# The image the Helm chart runs: ghcr.io/forkspacer/module-admission:<appVersion>.
#   docker build -t ghcr.io/forkspacer/module-admission:0.1.0 .
# It holds exactly what `npm pack` ships (package.json's "files"), with the production dependencies of
# package-lock.json: the image and the npm package are one artifact (test/package/npm-pack.e2e.test.ts).

# Build: compile TypeScript and bundle the CLI (scripts/bundle-cli.mjs), build the playground page
# (dist/playground/, served by `serve --playground`; its examples come from examples/), `npm pack`, then
# unpack that tarball into /app.
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.json README.md ./
COPY bin ./bin
COPY src ./src
COPY scripts ./scripts
COPY schemas ./schemas
COPY examples ./examples
# No install scripts: the runtime needs none, and the dev tools' ones (helm extraction) are for tests.
RUN npm ci --ignore-scripts && npm run compile && npm run build:playground \
 && npm pack --pack-destination /pack
RUN mkdir /app && tar -xzf /pack/module-admission-*.tgz -C /app --strip-components=1 \
 && cp package-lock.json /app/ && cd /app && npm ci --omit=dev --ignore-scripts && rm package-lock.json

# Runtime: distroless Node.js, no shell or package manager, uid 65532 (the chart's runAsUser). The
# chart runs it with a read-only root filesystem: the server writes only under --cert-dir.
FROM gcr.io/distroless/nodejs24-debian12:nonroot
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app /app
USER 65532:65532
EXPOSE 8443 8080
# The same CLI as `npx module-admission`: `docker run IMAGE validate -f -`, `install-crds`, `audit`.
ENTRYPOINT ["/nodejs/bin/node", "bin/module-admission.js"]
CMD ["serve"]
