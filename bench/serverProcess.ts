import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** What /proc/<pid>/status says of a process's memory, in MiB. */
export interface MemoryReading {
  /** Peak resident set (VmHWM) since start or since the last `resetPeak()`; counts mmap'd database pages. */
  peakRssMiB: number;
  /** Resident set now (VmRSS). */
  rssMiB: number;
  /** Anonymous resident set now (RssAnon): heap, buffers; no file pages. */
  anonRssMiB: number;
}

/** `compdata serve` as a separate process, so the load generator does not share its event loop. */
export interface ServerProcess {
  url: string;
  pid: number;
  memory(): MemoryReading;
  /** CPU time the process has used so far (user + system, all threads), in seconds. */
  cpuSeconds(): number;
  /** Starts a new peak: VmHWM becomes the current RSS (`echo 5 > /proc/<pid>/clear_refs`, Linux >= 4.0). */
  resetPeak(): void;
  stop(): Promise<void>;
}

export interface ServerOptions {
  /** Arguments of `serve` after `--db PATH --port 0` (`--max-concurrent 256`, say). */
  serveArgs?: string[];
  /** Arguments of node before the script (`--cpu-prof`, say). */
  nodeArgs?: string[];
  /** The CLI to run (default `bin/compdata.js` of this checkout; another build's, to compare two). */
  bin?: string;
  /** Instead of `serve`: one of the rulers of bareServer.ts over the same store. */
  bare?: 'memory' | 'sqlite' | 'statement' | 'key-in-memory';
  /**
   * The process id of the database server it talks to (PostgreSQL's postmaster), whose CPU time
   * is then counted as the server's: its own, its live children's and its reaped children's.
   */
  databasePid?: number;
}

export function memoryOf(pid: number): MemoryReading {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { peakRssMiB: mib('VmHWM'), rssMiB: mib('VmRSS'), anonRssMiB: mib('RssAnon') };
}

/** Clock ticks per second of /proc/<pid>/stat (`getconf CLK_TCK`; 100 on Linux). */
const CLOCK_TICKS = 100;

/** CPU time of the process and of its live children (the workers of `serve --workers`), all threads. */
export function cpuSecondsOf(pid: number): number {
  const fields = statFields(pid);
  const own = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  return childrenOf(pid).reduce((sum, child) => sum + cpuSecondsOf(child), own);
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces) in parentheses: utime, stime, cutime and cstime (14 to 17) at 11 to 14. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU time of a server process and of every child it has had: the live ones, and the ones it reaped (cutime, cstime). */
export function cpuSecondsWithReaped(pid: number): number {
  const fields = statFields(pid);
  return cpuSecondsOf(pid) + (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
}

/** The postmaster's process id, from the first line of `postmaster.pid` in a PostgreSQL data directory. */
export function postmasterPid(dataDirectory: string): number {
  return Number(readFileSync(`${dataDirectory}/postmaster.pid`, 'utf8').split('\n')[0]);
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return []; // gone meanwhile
  }
}

export async function startServerProcess(dbPath: string, options: ServerOptions = {}): Promise<ServerProcess> {
  const args = options.bare
    ? [...(options.nodeArgs ?? []), '--import', 'tsx', 'bench/bareServer.ts', options.bare, dbPath]
    : [...(options.nodeArgs ?? []), options.bin ?? 'bin/compdata.js', 'serve', '--db', dbPath, '--port', '0', ...(options.serveArgs ?? [])];
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  // A ruler builds its copy of the store first (a minute for 1,000,000 records).
  const [firstLine] = (await once(lines, 'line')) as [string];
  const url = /listening on (http:\/\/\S+)/.exec(firstLine)?.[1];
  if (!url) throw new Error(`unexpected first line from serve: ${firstLine}`);
  // The log lines that follow (one per request) are drained unread: splitting them would cost
  // the load generator's process time.
  lines.close();
  child.stdout!.resume();
  const pid = child.pid!;
  return {
    url,
    pid,
    memory: () => memoryOf(pid),
    cpuSeconds: () => cpuSecondsOf(pid) + (options.databasePid === undefined ? 0 : cpuSecondsWithReaped(options.databasePid)),
    resetPeak: () => writeFileSync(`/proc/${pid}/clear_refs`, '5'),
    stop: async () => {
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      if (code !== 0) throw new Error(`serve exited with ${code} on SIGTERM`);
    },
  };
}
