// `make demo` and `make demo-postgres`: the steps that show a payroll webhook call arriving on a
// receiver on this machine (`compdata webhooks listen`), printed before the server starts.
// Usage: node scripts/demoWebhookHint.mjs PORT ADMIN_TOKEN_FILE DB
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The Node to run the CLI with: the one the make targets brought into .node/ when the machine's
 * is too old for compdata (as a path from here), else the machine's `node`.
 */
const NODE = process.execPath.includes('/.node/') ? relative(process.cwd(), process.execPath) : 'node';

/** The lines to print; the demo's seed is deterministic, so its user and month are known. */
export function webhookHint(port, tokenFile, db) {
  const admin = `http://127.0.0.1:${port}/admin/v1/tenants/demo`;
  const bearer = `-H "Authorization: Bearer $(cat ${tokenFile})" -H 'Content-Type: application/json'`;
  const statement = `--db ${db} --tenant demo --user mateo.miller@example.com`;
  return [
    'Watch a payroll webhook call arrive (docs/administration.md#delivery):',
    '  1. a receiver that prints each call, in a terminal of its own:',
    `       ${NODE} bin/compdata.js webhooks listen --port 9009`,
    '  2. a webhook endpoint of the demo tenant at it (the answer shows its secrets once; give',
    '     `signing_secret` to the receiver as --signing-secret to have each call verified):',
    `       curl -s -X POST ${bearer} -d '{"url":"http://127.0.0.1:9009/","events":["statement.sent_to_payroll"]}' ${admin}/webhooks`,
    '  3. a statement validated, then sent to payroll: the receiver prints its call within a second:',
    `       ${NODE} bin/compdata.js statements validate ${statement}`,
    `       ${NODE} bin/compdata.js statements send ${statement}`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [port, tokenFile, db] = process.argv.slice(2);
  process.stdout.write(`${webhookHint(port, tokenFile, db)}\n\n`);
}
