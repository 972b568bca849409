import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

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
    assert.deepEqual(sections, ['Keys', 'Paging', 'Metrics and dimensions', 'Bulk attributions', 'Errors', 'Data tables', 'Serving']);
  });

  test("the README's first section says where the API reference and the rules are", () => {
    const twoCommands = read('README.md').split('\n## ')[1]!;
    assert.match(twoCommands, /^Two commands/);
    assert.match(twoCommands, /http:\/\/127\.0\.0\.1:8080\/docs/);
    assert.match(twoCommands, /\(docs\/rules\.md\)/);
    assert.ok(existsSync(join(ROOT, 'src/http/docsPage/index.html')));
  });
});
