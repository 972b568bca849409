import { Command } from 'commander';
import { backupCommand } from './backup.js';
import { checkCommand } from './check.js';
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

function buildProgram(): Command {
  const program = new Command('compdata')
    .description('self-hostable sales-compensation data API over one SQLite file')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .addCommand(seedCommand())
    .addCommand(importCommand())
    .addCommand(exportCommand())
    .addCommand(keysCommand())
    .addCommand(statementsCommand())
    .addCommand(serveCommand())
    .addCommand(backupCommand())
    .addCommand(compactCommand())
    .addCommand(checkCommand())
    .addCommand(webhooksCommand())
    .addHelpText('after', '\nExit codes: 0 done, 1 the work could not be done, 2 wrong command line.');
  applyConventions(program);
  return program;
}

/**
 * On every command: errors are thrown instead of exiting (so that `runCli` picks the exit code)
 * and written on one line; a command without its subcommand is a usage error, not a help page.
 */
function applyConventions(command: Command): void {
  command.exitOverride().configureOutput({
    outputError: (message, write) => write(`${oneLine(message)}\n`),
  });
  if (command.commands.length > 0) {
    command.helpCommand(true).allowExcessArguments().action(() => {
      const [unknown] = command.args;
      const problem = unknown === undefined ? 'missing command' : `unknown command '${unknown}'`;
      command.error(`error: ${problem}; see '${commandPath(command)} --help'`);
    });
  }
  command.commands.forEach(applyConventions);
}

function commandPath(command: Command): string {
  return command.parent ? `${commandPath(command.parent)} ${command.name()}` : command.name();
}

/** Runs the command line `argv` (as `process.argv`) and returns the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return EXIT_OK;
  } catch (error) {
    return exitCodeOf(error, (line) => process.stderr.write(`${line}\n`));
  }
}
