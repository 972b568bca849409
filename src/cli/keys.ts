import { Command, Option } from 'commander';
import type { KeyInfo, KeyScope } from '../store/vocabulary/tenancy.js';
import { parseTenantName, parseText } from './arguments.js';
import type { CommandIo } from './commandIo.js';
import { DB_HELP, withStore } from './database.js';
import { CommandFailure } from './errors.js';

const SCOPES: readonly KeyScope[] = ['read', 'write'];

export function keysCommand(io: CommandIo): Command {
  return new Command('keys')
    .description('create, revoke and list API keys')
    .addCommand(createCommand(io))
    .addCommand(revokeCommand(io))
    .addCommand(listCommand(io));
}

function createCommand(io: CommandIo): Command {
  return new Command('create')
    .description('create an API key for a tenant (the tenant is created when missing)')
    .requiredOption('--db <path>', `${DB_HELP} (must exist: seed or import create one)`, parseText)
    .requiredOption('--tenant <name>', 'tenant whose data the key reads and writes', parseTenantName)
    .addOption(new Option('--scope <scope>', 'what the key may do: read (every write is refused with 403), or write').choices(SCOPES).default('write'))
    .addHelpText(
      'after',
      '\nThe key is printed once, as the last line of stdout, and cannot be shown again:\n' +
        "  KEY=$(compdata keys create --db data.db --tenant acme | tail -n 1)",
    )
    .action(async (options: { db: string; tenant: string; scope: KeyScope }) => {
      const { id, key } = await withStore(options.db, 'mustExist', (store) => store.createKey(options.tenant, options.scope));
      io.stdout.write(`created ${options.scope} key ${id} for tenant ${options.tenant}; it is shown only now:\n${key}\n`);
    });
}

function revokeCommand(io: CommandIo): Command {
  return new Command('revoke')
    .description('revoke an API key; it is refused from the next request on')
    .argument('<key>', 'the full key, or its id as shown by "keys list"', parseText)
    .requiredOption('--db <path>', `${DB_HELP} (must exist)`, parseText)
    .addHelpText('after', '\nExits 1 when no active key matches (unknown, or already revoked).')
    .action(async (keyOrId: string, options: { db: string }) => {
      const revoked = await withStore(options.db, 'mustExist', (store) => store.revokeKey(keyOrId));
      // The argument may be a secret: it is never echoed.
      if (!revoked) throw new CommandFailure('no active key matches (unknown, or already revoked)');
      io.stdout.write('key revoked\n');
    });
}

function listCommand(io: CommandIo): Command {
  return new Command('list')
    .description('list API keys (id, tenant, creation time, state, scope); keys themselves are never shown')
    .requiredOption('--db <path>', `${DB_HELP} (must exist)`, parseText)
    .option('--tenant <name>', 'only the keys of this tenant (which must exist)', parseTenantName)
    .option('--json', 'print a JSON array instead of a table')
    .action(async (options: { db: string; tenant?: string; json?: boolean }) => {
      const keys = await withStore(options.db, 'mustExist', async (store) => {
        if (options.tenant !== undefined && !(await store.findTenant(options.tenant))) {
          throw new CommandFailure(`no tenant named ${JSON.stringify(options.tenant)}`);
        }
        return store.listKeys(options.tenant);
      });
      io.stdout.write(options.json ? `${JSON.stringify(keys, null, 2)}\n` : keyTable(keys));
    });
}

/** Aligned columns with a header line, one key per line. */
function keyTable(keys: readonly KeyInfo[]): string {
  const header = ['ID', 'TENANT', 'CREATED', 'STATE', 'SCOPE'];
  const rows = [header, ...keys.map((key) => [key.id, key.tenant, key.created_at, key.state, key.scope])];
  const widths = header.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return `${rows.map(line).join('\n')}\n`;
}
