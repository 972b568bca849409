import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startServe } from '../support/serveProcess.js';
import { runInProcess, temporaryDirectory } from './cliProcess.js';
import { startListener } from './webhookListener.js';

// The steps `make demo` prints to watch a payroll webhook call arrive, followed as printed (on
// the listener's port instead of 9009), against a server started as the demo starts it. The
// CLI's command lines (seed, statements) run in the test's process, as inProcess.test.ts proves
// the binary runs them; the server and the listener are processes.

const HINT = fileURLToPath(new URL('../../scripts/demoWebhookHint.mjs', import.meta.url));
const PRINTED_PORT = '9009';

test('the webhook steps make demo prints bring a call of the demo tenant, signed, to the listener', { timeout: 90_000 }, async (t) => {
  const directory = temporaryDirectory(t);
  const db = join(directory, 'compdata.db');
  const tokenFile = join(directory, 'admin.token');
  writeFileSync(tokenFile, 'a-demo-administration-token-of-some-length');
  assert.equal((await runInProcess(['seed', '--db', db, '--tenant', 'demo', '--records', '1000'])).code, 0);
  const server = await startServe(t, db, ['--admin-token-file', tokenFile, '--webhook-allow-private']);
  const { stdout: hint } = await promisify(execFile)(process.execPath, [HINT, new URL(server.url).port, tokenFile, db]);
  const lines = hint.split('\n').map((line) => line.trim());
  // The CLI's lines start with the Node to run it with (`node`, or the one the make targets brought).
  const cli = lines.filter((line) => / bin\/compdata\.js /.test(line)).map((line) => line.slice(line.indexOf(' bin/compdata.js ') + ' bin/compdata.js '.length));
  const commandOf = (prefix: string) => lines.filter((line) => line.startsWith(prefix));

  // 1. The listener, as printed, but on a free port.
  const listen = cli.find((line) => line.startsWith('webhooks listen'));
  assert.equal(listen, `webhooks listen --port ${PRINTED_PORT}`);
  const first = await startListener(t, ['webhooks', 'listen', '--port', '0']);
  const port = new URL(first.url).port;

  // 2. The endpoint, with the curl line's token file, body and URL.
  const [curl] = commandOf('curl ');
  const parts = /^curl -s -X POST -H "Authorization: Bearer \$\(cat (\S+)\)" -H 'Content-Type: application\/json' -d '(\{.*\})' (\S+)$/.exec(curl ?? '');
  assert.ok(parts, `the endpoint is made with a curl line: ${curl}`);
  const made = await fetch(parts[3]!, {
    method: 'POST',
    headers: { authorization: `Bearer ${readFileSync(parts[1]!, 'utf8')}`, 'content-type': 'application/json' },
    body: parts[2]!.replace(`:${PRINTED_PORT}/`, `:${port}/`),
  });
  assert.equal(made.status, 201);
  const { signing_secret: signingSecret } = (await made.json()) as { signing_secret: string };

  // The listener again on its port, given the signing secret as the hint says.
  await first.stop();
  const listener = await startListener(t, ['webhooks', 'listen', '--port', port, '--signing-secret', signingSecret]);

  // 3. The statement validated, then sent, with the commands printed.
  const statements = cli.filter((line) => line.startsWith('statements ')).map((line) => line.split(' '));
  assert.deepEqual(statements.map((args) => args.slice(0, 2)), [['statements', 'validate'], ['statements', 'send']]);
  for (const args of statements) {
    const run = await runInProcess(args);
    assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
  }
  assert.match(await listener.nextLine(), /^\S+ msg_[0-9a-f]{24} statement\.sent_to_payroll stm_[0-9a-f]{12} mateo\.miller@example\.com \d{4}-\d{2}: [1-9]\d* record\(s\); signature verified -> 204$/);
});
