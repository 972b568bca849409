import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { assertClientBuilt, root } from './builtPackage.js';

/**
 * The client's type tests: `tsc` over `test/client/types/` (and `examples/`), importing
 * `compdata/client` as an integrator does. `typedRecords.ts` must compile (its `Equal` checks
 * hold only for the exact types); `rejected.ts` holds lines marked `@ts-expect-error` that must
 * each be an error (an unused directive is itself an error); `sandbox.ts` holds both for
 * `compdata/testing`. Run here so the runner counts it.
 * The TypeScript examples of the docs pages "From TypeScript" (`docs/client.md`) and "Migrating
 * from v1 to v2" (`docs/v2-migration.md`) are checked with them.
 */
const configPath = `${root}test/client/types/tsconfig.json`;

/** The first TypeScript block of the docs page `path`, whose title is `title`. */
function pageExample(path: string, title: string): string {
  const page = readFileSync(`${root}${path}`, 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(page);
  assert.ok(page.startsWith(`# ${title}\n`) && block, `${path} is the page "${title}" and has its example`);
  return block[1]!;
}

/** The docs pages' examples, as files of the types folder. */
const docsExamples = () => ({
  'clientExample.ts': pageExample('docs/client.md', 'From TypeScript: the typed client'),
  'migrationExample.ts': pageExample('docs/v2-migration.md', 'Migrating from v1 to v2'),
});

function loadConfig(): ts.ParsedCommandLine {
  const config = ts.getParsedCommandLineOfConfigFile(configPath, undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => assert.fail(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
  });
  assert.ok(config && config.errors.length === 0, 'the types tsconfig loads');
  return config;
}

/**
 * A program over the config's files plus `extra` in-memory files (name relative to the types
 * folder -> text). With `oldProgram`, the files it parsed are taken from it, not read and parsed
 * again (nothing on disk changes while the test runs).
 */
function program(config: ts.ParsedCommandLine, extra: Record<string, string> = {}, oldProgram?: ts.Program): ts.Program {
  const host = ts.createCompilerHost(config.options);
  const virtual = new Map(Object.entries(extra).map(([name, text]) => [`${root}test/client/types/${name}`, text]));
  const [getSourceFile, fileExists, readFile] = [host.getSourceFile.bind(host), host.fileExists.bind(host), host.readFile.bind(host)];
  host.getSourceFile = (name, language, ...rest) =>
    virtual.has(name) ? ts.createSourceFile(name, virtual.get(name)!, language) : (oldProgram?.getSourceFile(name) ?? getSourceFile(name, language, ...rest));
  host.fileExists = (name) => virtual.has(name) || fileExists(name);
  host.readFile = (name) => virtual.get(name) ?? readFile(name);
  return ts.createProgram({ rootNames: [...config.fileNames, ...virtual.keys()], options: config.options, host, oldProgram });
}

/** Each diagnostic as `file:line: message`, for assertions that say what went wrong. */
function described(diagnostics: readonly ts.Diagnostic[]): string[] {
  return diagnostics.map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${relative(root, diagnostic.file.fileName)}:${line + 1}: TS${diagnostic.code} ${message}`;
  });
}

test('compdata/client types: what must compile compiles, what must be refused is', async (t) => {
  assertClientBuilt();
  const config = loadConfig();
  const names = config.fileNames.map((name) => relative(root, name));
  const expectedFiles = ['test/client/types/typedRecords.ts', 'test/client/types/rejected.ts', 'test/client/types/sandbox.ts'];
  for (const expected of [...expectedFiles, 'examples/reportingTotals.ts', 'examples/sandboxNodeTest.test.ts', 'examples/sandboxVitest.test.ts']) {
    assert.ok(names.includes(expected), `${expected} is checked`);
  }
  const examples = docsExamples();
  const checked = program(config, examples);
  const diagnostics = ts.getPreEmitDiagnostics(checked);
  assert.deepEqual(described(diagnostics.filter((d) => d.file === undefined)), [], 'no diagnostics outside the files');
  for (const name of [...config.fileNames, ...Object.keys(examples).map((file) => `${root}test/client/types/${file}`)]) {
    await t.test(relative(root, name), () => assert.deepEqual(described(diagnostics.filter((d) => d.file?.fileName === name)), []));
  }

  await t.test('the check can fail: a wrong type and an unneeded @ts-expect-error are reported', () => {
    const canary = [
      "import type { ReportingRecord } from 'compdata/client';",
      'declare const record: ReportingRecord<{ metrics: "new_arr" }>;',
      'export const value: number = record.new_arr;',
      '// @ts-expect-error',
      'export const id: string = record.id;',
    ].join('\n');
    // The canary's own diagnostics: the other files were checked above.
    const withCanary = program(config, { 'canary.ts': canary }, checked);
    const found = described(ts.getPreEmitDiagnostics(withCanary, withCanary.getSourceFile(`${root}test/client/types/canary.ts`))).filter((d) => d.includes('canary.ts'));
    assert.equal(found.length, 2, found.join('\n'));
    assert.match(found[0]!, /canary\.ts:3: TS2322 .*Type 'null' is not assignable to type 'number'/);
    assert.match(found[1]!, /canary\.ts:4: TS2578 Unused '@ts-expect-error' directive/);
  });
});
