import { Command } from 'commander';
import { backupCommand } from './backup.js';
import { checkCommand } from './check.js';
import { processIo, type CommandIo, type OutputStream } from './commandIo.js';
import { compactCommand } from './compact.js';
import { EXIT_OK, exitCodeOf, oneLine } from './errors.js';
import { exportCommand } from './export.js';
import { importCommand } from './import.js';
import { keysCommand } from './keys.js';
import { seedCommand } from './seed.js';
import { serveCommand } from './serve.js';
import { statementsCommand } from './statements.js';
import { packageVersion } from './version.js';
import { webhooksCommand } from './webhookListen.js';

function buildProgram(io: CommandIo): Command {
  const program = new Command('compdata')
    .description('self-hostable sales-compensation data API over one SQLite file')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .addCommand(seedCommand(io))
    .addCommand(importCommand(io))
    .addCommand(exportCommand(io))
    .addCommand(keysCommand(io))
    .addCommand(statementsCommand(io))
    .addCommand(serveCommand())
    .addCommand(backupCommand(io))
    .addCommand(compactCommand(io))
    .addCommand(checkCommand(io))
    .addCommand(webhooksCommand())
    .addHelpText('after', '\nExit codes: 0 done, 1 the work could not be done, 2 wrong command line.');
  applyConventions(program, io);
  return program;
}

/**
 * On every command: errors are thrown instead of exiting (so that `runCli` picks the exit code)
 * and written on one line; help, version and errors go to `io`'s streams, the help wrapped to
 * their width when they are terminals (as commander does for the process's own); a command
 * without its subcommand is a usage error, not a help page.
 */
function applyConventions(command: Command, io: CommandIo): void {
  command.exitOverride().configureOutput({
    writeOut: (text) => void io.stdout.write(text),
    writeErr: (text) => void io.stderr.write(text),
    getOutHelpWidth: () => helpWidth(io.stdout),
    getErrHelpWidth: () => helpWidth(io.stderr),
    outputError: (message, write) => write(`${oneLine(message)}\n`),
  });
  if (command.commands.length > 0) {
    command.helpCommand(true).allowExcessArguments().action(() => {
      const [unknown] = command.args;
      const problem = unknown === undefined ? 'missing command' : `unknown command '${unknown}'`;
      command.error(`error: ${problem}; see '${commandPath(command)} --help'`);
    });
  }
  for (const subcommand of command.commands) applyConventions(subcommand, io);
}

/** A terminal's width, else commander's default of 80 columns. */
function helpWidth(stream: OutputStream): number {
  return (stream.isTTY && stream.columns) || 80;
}

function commandPath(command: Command): string {
  return command.parent ? `${commandPath(command.parent)} ${command.name()}` : command.name();
}

/**
 * Runs the command line `argv` (as `process.argv`: the program, the script, then the arguments)
 * and returns the exit code; its input and output are `io`'s (by default the process's). Each
 * run builds its own commands, so runs may overlap. `serve` and `webhooks listen` own their
 * process (its signals, its exit, the workers it forks): those run as `compdata` processes.
 */
export async function runCli(argv: readonly string[], io: CommandIo = processIo): Promise<number> {
  try {
    await buildProgram(io).parseAsync(argv);
    return EXIT_OK;
  } catch (error) {
    return exitCodeOf(error, (line) => io.stderr.write(`${line}\n`));
  }
}
