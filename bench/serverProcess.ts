import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** `compdata serve` as a separate process, so the load generator does not share its event loop. */
export interface ServerProcess {
  url: string;
  pid: number;
  /** Peak resident set (VmHWM) and current anonymous resident set (RssAnon), in MiB. */
  memory(): { peakRssMiB: number; anonRssMiB: number };
  stop(): Promise<void>;
}

export async function startServerProcess(dbPath: string, extraArgs: string[] = []): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, ['bin/compdata.js', 'serve', '--db', dbPath, '--port', '0', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const [firstLine] = (await once(lines, 'line')) as [string];
  const url = /listening on (http:\/\/\S+)/.exec(firstLine)?.[1];
  if (!url) throw new Error(`unexpected first line from serve: ${firstLine}`);
  const pid = child.pid!;
  return {
    url,
    pid,
    memory: () => {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
      return { peakRssMiB: kib('VmHWM') / 1024, anonRssMiB: kib('RssAnon') / 1024 };
    },
    stop: async () => {
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      if (code !== 0) throw new Error(`serve exited with ${code} on SIGTERM`);
    },
  };
}
