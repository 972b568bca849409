import { Command, InvalidArgumentError } from 'commander';
import { formatMonth, parseMonth } from '../domain/months.js';
import { refusalReason, type TargetStatus } from '../domain/statementLifecycle.js';
import type { StatementRef, StatementSelection } from '../store/vocabulary/webhookShapes.js';
import { parseTenantName, parseText } from './arguments.js';
import type { CommandIo } from './commandIo.js';
import { DB_HELP, withStore } from './database.js';
import { CommandFailure, UsageFailure } from './errors.js';

/** A month, `YYYY-MM`. */
function parseMonthOption(text: string): number {
  const month = parseMonth(text);
  if (month === undefined) throw new InvalidArgumentError('must be a month, YYYY-MM.');
  return month;
}

/** A statement as `EMAIL:YYYY-MM` (the last colon parts them), collected over repeated options. */
function parseStatement(text: string, previous: readonly StatementRef[] = []): StatementRef[] {
  const colon = text.lastIndexOf(':');
  const month = colon > 0 ? parseMonth(text.slice(colon + 1)) : undefined;
  if (month === undefined) throw new InvalidArgumentError('must be EMAIL:YYYY-MM (the user and the month of the statement).');
  return [...previous, { user: parseText(text.slice(0, colon)), month }];
}

interface ChangeOptions {
  db: string;
  tenant: string;
  statement?: StatementRef[];
  user?: string;
  from?: number;
  to?: number;
}

function selectionOf({ statement, user, from, to }: ChangeOptions): StatementSelection {
  const given = [statement !== undefined, user !== undefined, from !== undefined || to !== undefined].filter(Boolean).length;
  if (given !== 1) throw new UsageFailure('error: give exactly one of --statement, --user, or --from with --to');
  if (statement) return { statements: statement };
  if (user !== undefined) return { user };
  if (from === undefined || to === undefined || from > to) throw new UsageFailure('error: --from and --to go together, --from not after --to');
  return { period: { start: from, end: to } };
}

/** One subcommand: statements to `status`, through the store's `changeStatementStatus` as the administration API does. */
function changeCommand(io: CommandIo, name: string, status: TargetStatus, description: string): Command {
  return new Command(name)
    .description(description)
    .requiredOption('--db <path>', `${DB_HELP} (must exist)`, parseText)
    .requiredOption('--tenant <name>', 'the tenant of the statements', parseTenantName)
    .option('--statement <email:month>', 'a statement by its user and month (repeat for more: all change or none)', parseStatement)
    .option('--user <email>', "every statement of the user that may make the change", parseText)
    .option('--from <month>', 'with --to: every statement of these months that may make the change', parseMonthOption)
    .option('--to <month>', 'the last month of --from', parseMonthOption)
    .action(async (options: ChangeOptions) => {
      const selection = selectionOf(options);
      const outcome = await withStore(options.db, 'mustExist', (store) => store.changeStatementStatus(options.tenant, status, selection));
      switch (outcome.outcome) {
        case 'unknownTenant':
          throw new CommandFailure(`no tenant named ${JSON.stringify(options.tenant)}`);
        case 'unknownUser':
          throw new CommandFailure(`the tenant has no user ${JSON.stringify(options.user)}; nothing changed`);
        case 'missing':
          throw new CommandFailure(`${outcome.statement.user} has no statement in ${formatMonth(outcome.statement.month)}; nothing changed`);
        case 'refused':
          throw new CommandFailure(
            `nothing changed: ${outcome.changes.map((change) => `the statement of ${change.user} in ${formatMonth(change.month)} ${refusalReason(change.from, status)}`).join('; ')}`,
          );
        case 'changed':
          for (const change of outcome.changes) io.stdout.write(`${change.id} ${change.user} ${formatMonth(change.month)} ${change.from} -> ${change.to}\n`);
          io.stdout.write(`${outcome.changes.length} statement(s) now ${status}; ${outcome.calls} webhook call(s) queued\n`);
      }
    });
}

export function statementsCommand(io: CommandIo): Command {
  return new Command('statements')
    .description("move statements along their lifecycle (draft -> validated -> sent_to_payroll -> paid)")
    .addCommand(changeCommand(io, 'validate', 'validated', 'validate draft statements'))
    .addCommand(changeCommand(io, 'send', 'sent_to_payroll', 'send validated statements to payroll (queues their webhook calls)'))
    .addCommand(changeCommand(io, 'paid', 'paid', 'mark statements sent to payroll as paid'))
    .addHelpText('after', '\nExits 1, nothing changed, when a statement listed does not exist or may not make the change.');
}
