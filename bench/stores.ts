/**
 * The suite's databases, built once into bench/.work/ and reused while their sizes stay:
 * - the read store: `compdata seed --records N` (N reporting records, a fifth as many `deals`
 *   table records, 200 users with group and manager attributions);
 * - the bulk store (bulkStore.ts): 50 attributions per user, about BENCH_ATTRIBUTIONS in all (and
 *   8 smaller tenants beside), copied afresh for every suite run, since the bulk PUTs change it.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { attributionCount, prepareBulkStore, usersFor } from './bulkStore.js';
import type { BenchConfig } from './config.js';

export interface Store {
  dbPath: string;
  /** A key of the store's tenant, created for this run. */
  key: string;
}

export interface Stores {
  read: Store;
  bulk: Store & { users: number; attributions: number; tenantKeys: string[] };
}

function compdata(...args: string[]): string {
  return execFileSync(process.execPath, ['bin/compdata.js', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

/** The seeded read store of `records` reporting records, and a fresh key of its tenant `bench`. */
export function prepareReadStore(config: BenchConfig): Store {
  mkdirSync(config.workDir, { recursive: true });
  const dbPath = `${config.workDir}/bench-${config.records}.db`;
  if (!existsSync(dbPath)) {
    const started = Date.now();
    compdata('seed', '--db', dbPath, '--tenant', 'bench', '--records', String(config.records), '--seed', '1');
    console.log(`seeded ${config.records} reporting records in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const key = compdata('keys', 'create', '--db', dbPath, '--tenant', 'bench').trim().split('\n').at(-1)!;
  return { dbPath, key };
}

/** A fresh copy of the bulk store for this run (built first when missing); `copy` names it when several are needed at once. */
export async function prepareBulkRunStore(config: BenchConfig, copy = 'run'): Promise<Stores['bulk']> {
  const users = usersFor(config.attributions);
  const started = Date.now();
  const built = await prepareBulkStore(config.workDir, users);
  if (Date.now() - started > 5000) console.log(`built the bulk store of ${attributionCount(users)} attributions in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const dbPath = `${config.workDir}/bulk-${copy}.db`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbPath}${suffix}`, { force: true });
  copyFileSync(built.dbPath, dbPath);
  return { dbPath, key: built.key, tenantKeys: built.tenantKeys, users, attributions: attributionCount(users) };
}
