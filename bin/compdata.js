#!/usr/bin/env node
// The CLI is compiled to dist/ by `npm run build` (run by `npm ci` through the prepare script).
import('../dist/src/cli/main.js').catch((error) => {
  process.stderr.write(`compdata: cannot start (${error.message}); run 'npm run build' first\n`);
  process.exit(1);
});
