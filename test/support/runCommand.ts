import { spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * Runs `command` with `env` added to ours, its output ours, SIGINT and SIGTERM passed on to it:
 * its exit code (1 when a signal ended it). For the wrappers that start servers around a test run.
 */
export async function runCommand(command: string, args: readonly string[], env: Record<string, string>): Promise<number> {
  const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  const [exitCode, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  return exitCode ?? (signal ? 1 : 0);
}
