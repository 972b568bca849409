#!/usr/bin/env node
// The CLI is compiled to dist/ by `npm run build` (run by `npm ci` through the prepare script), and
// bundled into dist/cli/ (scripts/bundleCli.mjs): a command loads a few files, not hundreds.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  // better-sqlite3 13 crashes on older lines: say so before anything loads it.
  process.stderr.write(
    `compdata: Node ${process.versions.node} is not supported; run it on Node 22.12 or later (22, 24 or 26). ` +
      "The make targets bring one from the npm registry when the machine's is older.\n",
  );
  process.exit(1);
}
// The compiled code of the modules is kept on disk (NODE_COMPILE_CACHE, else a directory in the
// system's temporary directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off): a later start reuses
// it instead of compiling every module again.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
import('../dist/cli/main.js').catch((error) => {
  process.stderr.write(`compdata: cannot start (${error.message}); run 'npm run build' first\n`);
  process.exit(1);
});
