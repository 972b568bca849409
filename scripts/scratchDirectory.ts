import { accessSync, constants, mkdtempSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where throwaway PostgreSQL clusters keep their files: a RAM-backed file system (/dev/shm) when
 * there is one with room, otherwise the temp dir. Every test database is a copy of a template,
 * hundreds of small files made and deleted per test: on a disk's file system (ext4) finding free
 * inodes among so many recently deleted ones is most of the servers' CPU time, on tmpfs it is
 * nothing. The data is thrown away with the cluster, so nothing is lost by keeping it in memory.
 * `COMPDATA_SCRATCH_DIR` chooses another place.
 */
const RAM_DIRECTORY = '/dev/shm';
const ROOM_NEEDED = 2 * 1024 ** 3;

function scratchRoot(): string {
  const chosen = process.env.COMPDATA_SCRATCH_DIR;
  if (chosen) return chosen;
  try {
    accessSync(RAM_DIRECTORY, constants.W_OK | constants.X_OK);
    const { bavail, bsize } = statfsSync(RAM_DIRECTORY);
    if (bavail * bsize >= ROOM_NEEDED) return RAM_DIRECTORY;
  } catch {
    // none here: the temp dir
  }
  return tmpdir();
}

/** A new directory for a throwaway cluster's files (see above): the caller removes it. */
export function scratchDirectory(prefix: string): string {
  return mkdtempSync(join(scratchRoot(), prefix));
}
