import type { KnipConfig } from 'knip';

/**
 * Knip (`make lint`): files nothing reaches, exports and types no other file imports, and
 * dependencies that package.json lists but nothing uses (or that the code uses unlisted).
 * The entries are every file a process or a thread starts from; knip follows imports from there.
 */
const config: KnipConfig = {
  entry: [
    // bin/compdata.js loads the build of src/cli/main.ts (bundled into dist/cli/main.js by
    // scripts/bundleCli.mjs from dist/src/cli/main.js). The package's
    // `./client` export (dist/src/client/index.js) knip maps to src/client/index.ts by itself.
    'src/cli/main.ts',
    // Worker threads, started by src/store/threads/startThread.ts by name (`new Worker(new URL(...))`),
    // from the sources through threadFromSource.mjs.
    'src/store/sqlite/writerThread.ts',
    'src/store/sqlite/transactionThread.ts',
    'src/store/sqlite/checkpointThread.ts',
    'src/store/postgres/importThread.ts',
    'src/store/threads/threadFromSource.mjs',
    'test/**/*.test.ts',
    // Run as processes of their own: the runner and the PostgreSQL wrapper of `make test`, and
    // the cluster that reachableBinaries.test.ts starts from a copy of the checkout.
    'test/support/runTests.ts',
    'test/support/withPostgres.ts',
    'test/support/withPgBouncer.ts',
    'test/support/withCitus.ts',
    'test/support/clusterRoundTrip.ts',
    // The client's type tests, compiled by test/client/types.test.ts.
    'test/client/types/*.ts',
    // `node --import tsx bench/X.ts`, and bench/peakRss.mjs preloaded into measured commands.
    'bench/*.{ts,mjs}',
    'scripts/*.ts',
    'examples/*.ts',
  ],
  project: ['src/**/*.{ts,mjs}', 'test/**/*.ts', 'bench/**/*.{ts,mjs}', 'scripts/**/*.ts', 'examples/**/*.ts'],
  ignoreDependencies: [
    // Its files are served by GET /docs, found by createRequire().resolve in src/http/docsAssets.ts.
    'swagger-ui-dist',
    // Run by the Makefile (from node_modules/.bin): `make lint`, `make generate` / `make check-generated`, `make coverage`.
    '@redocly/cli',
    'madge',
    'openapi-typescript',
    'c8',
  ],
  // The system's: `npm test` runs `make test`; test/support/smallDisk.ts mounts a tmpfs.
  ignoreBinaries: ['make', 'mount', 'umount'],
};

export default config;
