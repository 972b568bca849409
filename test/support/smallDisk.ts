import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, rmdirSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A file system of a small fixed size, for tests of what a full disk does (issue 15, part 3): a
 * tmpfs mounted for one test. Filling it with a ballast file makes every write that needs more
 * room fail with ENOSPC, as on a real full disk; removing the ballast gives the room back.
 *
 * Mounting needs root (CI runs as root); elsewhere `smallDiskUnavailable()` is the reason such
 * tests are skipped, and they say so.
 */
export interface SmallDisk {
  readonly directory: string;
  /** Writes ballast until the file system is full; returns the bytes written. */
  fill(): number;
  /** Removes the ballast: the room it took is free again. */
  free(): void;
  /** Unmounts the file system (lazily: a process that still holds a file on it does not stop it) and removes its directory. */
  unmount(): void;
}

export interface SmallDiskOptions {
  megabytes: number;
  /** The owner of the file system's root (for a database server that runs as another user). */
  owner?: { uid: number; gid: number };
}

export function mountSmallDisk({ megabytes, owner }: SmallDiskOptions): SmallDisk {
  const directory = mkdtempSync(join(tmpdir(), 'compdata-small-disk-'));
  const ownership = owner ? `,uid=${owner.uid},gid=${owner.gid},mode=0700` : ',mode=0777';
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m${ownership}`, 'compdata-test', directory], { stdio: 'pipe' });
  } catch (error) {
    rmdirSync(directory);
    throw error;
  }
  const ballast = join(directory, 'ballast');
  return {
    directory,
    fill() {
      const fd = openSync(ballast, 'a');
      let written = 0;
      try {
        // Large writes first, then page-sized ones: the disk ends full to the last page.
        for (const size of [1 << 20, 4096]) {
          const chunk = Buffer.alloc(size, 0x5a);
          for (;;) {
            try {
              written += writeSync(fd, chunk);
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
              throw error;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
      return written;
    },
    free: () => rmSync(ballast, { force: true }),
    unmount() {
      execFileSync('umount', ['--lazy', directory]);
      rmdirSync(directory);
    },
  };
}

let probed: string | false | undefined;

/**
 * Why a small disk cannot be mounted here (not root, or no permission to mount); false when it
 * can. Found out once per process, by the first test that asks (not by every test file that
 * imports this module).
 */
export function smallDiskUnavailable(): string | false {
  probed ??= probe();
  return probed;
}

function probe(): string | false {
  if (process.platform !== 'linux') return 'a small disk (tmpfs) is mounted on Linux only';
  if (process.getuid?.() !== 0) return 'mounting a small disk (tmpfs) needs root: run as root, as CI does, to test full disks';
  try {
    mountSmallDisk({ megabytes: 1 }).unmount();
    return false;
  } catch (error) {
    return `a small disk (tmpfs) could not be mounted here: ${(error as Error).message.split('\n')[0]}`;
  }
}
