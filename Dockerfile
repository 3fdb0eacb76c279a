# The image of `tinyagent study k8s`: node and this checkout, the CLI as its entry point, so that a
# pod's args are a tinyagent command (study run /study --index I). Build it from the checkout:
#   docker build -t tinyagent:local .
FROM node:20-slim
WORKDIR /app
# The dependencies first, from the lockfile, so that a source change rebuilds only the last layer.
# tsx (a dependency) runs the TypeScript sources: there is no build step. The dev dependencies
# (tests, type checks, the browser of the screenshots) are left out.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY . .
ENTRYPOINT ["node", "/app/bin/tinyagent.js"]
