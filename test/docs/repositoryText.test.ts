import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { commentsOf } from '../support/sourceComments.js';

/** What a user reads in a clone: the tracked markdown files and the contract. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
const markdown = tracked.filter((path) => path.endsWith('.md') && !path.startsWith('bench/results/'));
const userText = [...markdown, 'openapi/openapi.yaml'];
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The `[text](target)` links of a markdown file, outside code. */
function linksOf(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
}

/** GitHub's anchors of a markdown file's headings. */
function anchorsOf(text: string): Set<string> {
  const headings = text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} +(.+)$/gm);
  return new Set([...headings].map(([, heading]) => heading!.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')));
}

describe('the text a user reads in a clone', () => {
  test('names no rule by an internal number (D1..D7)', () => {
    for (const path of userText) {
      const found = [...read(path).matchAll(/\bD[1-9]\b/g)].map((match) => match[0]);
      assert.deepEqual(found, [], `${path} speaks of ${found.join(', ')}`);
    }
  });

  test('every link leads to a tracked file of the repository (and to a heading there), none outside it', () => {
    assert.ok(markdown.includes('README.md') && markdown.includes('docs/rules.md'));
    for (const path of markdown) {
      for (const link of linksOf(read(path))) {
        assert.doesNotMatch(link, /^[a-z][a-z0-9+.-]*:/i, `${path} links outside the repository: ${link}`);
        const [file, anchor] = link.split('#') as [string, string | undefined];
        const target = file === '' ? path : normalize(join(dirname(path), decodeURI(file)));
        const isFolder = tracked.some((candidate) => candidate.startsWith(`${target.replace(/\/$/, '')}/`));
        assert.ok(tracked.includes(target) || isFolder, `${path}: ${link} is not a file of a clone`);
        if (anchor !== undefined) {
          assert.ok(anchorsOf(read(target)).has(anchor), `${path}: ${link}: no heading #${anchor} in ${target}`);
        }
      }
    }
  });

  test('docs/rules.md states the rules under their named sections', () => {
    const sections = [...read('docs/rules.md').matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    assert.deepEqual(sections, ['Keys', 'Paging', 'Metrics and dimensions', 'Bulk attributions', 'Users', 'Archived users', 'Retries', 'Errors', 'Data tables', 'Table imports', 'v2 reads', 'Statements', 'Versions', 'Serving']);
  });

  test("the README's first section says where the API reference and the rules are", () => {
    const twoCommands = read('README.md').split('\n## ')[1]!;
    assert.match(twoCommands, /^Two commands/);
    assert.match(twoCommands, /http:\/\/127\.0\.0\.1:8080\/docs/);
    assert.match(twoCommands, /\(docs\/rules\.md\)/);
    assert.ok(existsSync(join(ROOT, 'src/http/docsPage/index.html')));
  });
});

/** The comments of the code under src/, each with the file and line it starts on. */
const sourceFiles = tracked.filter((path) => path.startsWith('src/') && /\.(?:ts|mjs|js)$/.test(path));
const sourceComments = sourceFiles.flatMap((path) => commentsOf(path, read(path)).map((comment) => ({ path, ...comment })));

/** Each match of `pattern` in the comments of src/, with the file and line it is on. */
function inComments(pattern: RegExp): { path: string; line: number; match: RegExpExecArray }[] {
  return sourceComments.flatMap(({ path, line, text }) =>
    [...text.matchAll(pattern)].map((match) => ({ path, line: line + text.slice(0, match.index).split('\n').length - 1, match })),
  );
}

/**
 * A path a comment names: a word that ends in an extension of the repository's files, with an
 * optional `#heading` (`sqlite/pagedReads.ts`, `../bulkUpsert.ts`, `docs/rules.md#paging`).
 */
const NAMED_PATH = /(?<![\w@/.:-])((?:\.{1,2}\/)*(?:[\w.-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|mjs|js|json|md|yaml|html|sh))(?![\w-])(?:#([\w-]+))?/g;

/**
 * The rule for a path in a comment: it is read against, in this order, the folder of the file
 * the comment is in, src/, src/store/ and the root of the repository, and must name a tracked
 * file in one of them (and a heading of it, after `#`). A path that starts with the name of a
 * dependency (`openapi-backend/router.js`) is that package's file, not the repository's.
 */
const BASES = (file: string) => [dirname(file), 'src', 'src/store', '.'];
const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
const dependencies = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)]);
const ofDependency = (path: string) => [...dependencies].some((name) => path.startsWith(`${name}/`));

describe('the comments of the code in src/', () => {
  test('were read (a check of the reading itself)', () => {
    assert.ok(sourceFiles.includes('src/store/threads/threadFromSource.mjs') && sourceFiles.length > 100);
    const header = sourceComments.find((comment) => comment.path === 'src/store/requests/fairQueue.ts' && comment.text.includes('Why: Node reads'));
    assert.ok(header, 'a doc comment of fairQueue.ts');
    assert.ok(sourceComments.some((comment) => comment.path === 'src/store/threads/threadFromSource.mjs' && comment.text.startsWith('//')));
  });

  test('name no rule by an internal number (D1..D7): a rule is a section of docs/rules.md', () => {
    const found = inComments(/\bD[1-9]\b/g).map(({ path, line, match }) => `${path}:${line}: ${match[0]}`);
    assert.deepEqual(found, []);
  });

  test('name only paths that exist: files of the repository, and headings of them after #', () => {
    const named = inComments(NAMED_PATH).map(({ path, line, match }) => ({ path, line, target: match[1]!, anchor: match[2] }));
    assert.ok(named.some(({ target, anchor }) => target === 'docs/rules.md' && anchor === 'paging'), 'the paths were read');
    const broken = named.flatMap(({ path, line, target, anchor }) => {
      if (ofDependency(target)) return [];
      const file = BASES(path)
        .map((base) => normalize(join(base, target)))
        .find((candidate) => tracked.includes(candidate));
      const where = `${path}:${line}: ${target}${anchor === undefined ? '' : `#${anchor}`}`;
      if (file === undefined) return [`${where} is no file (read against ${BASES(path).join(', ')})`];
      if (anchor !== undefined && !anchorsOf(read(file)).has(anchor)) return [`${where}: no heading #${anchor} in ${file}`];
      return [];
    });
    assert.deepEqual(broken, []);
  });
});
