// @ts-check
/**
 * Part of `npm run build`, after transpileSources.mjs: the client's type declarations
 * (tsconfig.client.json, into dist/src/client/ with the contract's generated types beside them in
 * dist/generated/), which an integrator's TypeScript reads when it imports compdata/client. Made
 * with TypeScript's compiler, a development dependency: on a clone installed with
 * `npm ci --omit=dev` (what `make demo` installs first), which serves and runs commands but
 * compiles no code against the client, they are left out, and the build says so.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = `${root}node_modules/typescript/bin/tsc`;
if (!existsSync(tsc)) {
  process.stderr.write("build: no TypeScript here (installed without development packages): the client's type declarations are left out\n");
} else {
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.client.json', '--noCheck'], { cwd: root, stdio: 'inherit' });
  mkdirSync(`${root}dist/generated`, { recursive: true });
  for (const name of ['api', 'admin']) copyFileSync(`${root}generated/${name}.d.ts`, `${root}dist/generated/${name}.d.ts`);
}
