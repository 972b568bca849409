import { CommanderError } from 'commander';

/**
 * Exit codes of every command:
 * - 0: done (and `--help`);
 * - 1: the command line was fine but the work could not be done (database cannot be opened,
 *   unknown key, tenant already seeded, server cannot listen);
 * - 2: the command line is wrong (unknown command or option, missing or invalid value, a
 *   `--db` that names no database where one must exist, or a database server that does not
 *   answer when the command starts).
 */
export const EXIT_OK = 0;
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

/** The command line was understood but the work cannot be done: exit 1. */
export class CommandFailure extends Error {}

/** The command line names something that is not there (a `--db` with no database, a server that does not answer): exit 2. */
export class UsageFailure extends Error {}

/** Commander's messages may carry a second line (a suggestion): errors are one line on stderr. */
export function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * Reports an error thrown while running the command line and returns the exit code. Commander
 * has already written its own messages (see `program.ts`); anything else is written here.
 */
export function exitCodeOf(error: unknown, writeError: (line: string) => void): number {
  // `compdata help` is commander's help(), whose exit code is `process.exitCode` as it stands:
  // the help shown is exit 0 whatever else runs in the process (no command asks for an error help).
  if (error instanceof CommanderError) return error.exitCode === EXIT_OK || error.code === 'commander.help' ? EXIT_OK : EXIT_USAGE;
  const message = error instanceof Error ? error.message : String(error);
  writeError(`error: ${oneLine(message)}`);
  return error instanceof UsageFailure ? EXIT_USAGE : EXIT_FAILURE;
}
