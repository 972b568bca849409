// @ts-check
/**
 * ESLint over the code of the repository (`make lint`): tsc's errors and typescript-eslint's
 * `recommendedTypeChecked` on the TypeScript files, with the types of tsconfig.eslint.json (the
 * root's options over every TypeScript file linted); ESLint's `recommended` on every file. Each
 * adjustment below says why; the code is fixed rather than a rule turned off wherever that can be
 * done.
 */
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import typeCheck from './scripts/eslintTypeCheck.mjs';

export default defineConfig(
  { ignores: ['dist/', 'generated/', 'node_modules/', '.node/', '.demo/', '.scratch/', '.coverage/', 'bench/.work/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        // One program for every TypeScript file (tsconfig.eslint.json: the root's options, its
        // files, the client's type tests and the example scripts). A file it does not hold is an
        // error, not linted without types.
        project: ['./tsconfig.eslint.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // node:test's test() and describe() return promises that the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] },
      ],
      // An `async` function without `await` is how a synchronous engine (SQLite) implements the
      // store's asynchronous interfaces: its throws become rejections, as the interface promises.
      // Dropping `async` would turn them into synchronous throws, a change of behaviour.
      '@typescript-eslint/require-await': 'off',
      // tsc's noUnusedLocals and noUnusedParameters (tsconfig.json, reported by the rule
      // typescript/type-errors below) are the one check of unused names. This rule would report
      // more than they do: `_`-named placeholders, the keys a rest pattern leaves out, values read
      // only through `typeof` in the type tests, imports named only by a doc comment's {@link}.
      '@typescript-eslint/no-unused-vars': 'off',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        // URLSearchParams prints as its query text. It is @types/node's here (no DOM lib), which
        // the default entry (`from: 'lib'`) does not match.
        { allow: [{ from: 'lib', name: ['Error', 'URL', 'URLSearchParams'] }, 'URLSearchParams'] },
      ],
    },
  },
  {
    // tsc's errors on the files of tsconfig.json (the client's type tests and the examples are
    // checked by their own projects), reported from the program the rules above already built:
    // `make lint` runs no tsc of its own (scripts/eslintTypeCheck.mjs).
    files: ['src/**/*.ts', 'generated/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts', 'knip.config.ts'],
    ignores: ['test/client/types/**'],
    plugins: { typescript: typeCheck },
    rules: { 'typescript/type-errors': 'error' },
  },
  {
    // Tests read response bodies, CLI output and database rows as untyped JSON (`any`) and assert
    // on them: the assertions check the shape; typing each body would restate the contract.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Files small and functions that fit a screen (docs/architecture.md): the migrations, lists
    // of statements in the order they ran, are the exception.
    files: ['src/**/*.ts', 'src/**/*.mjs'],
    ignores: ['src/store/*/migrations.ts'],
    rules: {
      'max-lines': ['error', { max: 300 }],
      'max-lines-per-function': ['error', { max: 150 }],
    },
  },
  // The rooms of the store and who may enter them (docs/architecture.md#the-stores-rooms): the
  // vocabulary imports nothing of the store's implementation, the interfaces only the
  // vocabulary, and nothing above the store knows an engine or the store's parts.
  {
    files: ['src/store/vocabulary/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.\\./(?!\\.\\./domain/)', message: 'the vocabulary imports only itself and the domain' }] }] },
  },
  {
    files: ['src/store/engine/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.\\./(?!vocabulary/|\\.\\./domain/)', message: "an engine's interfaces import only each other, the vocabulary and the domain" }] }] },
  },
  {
    files: ['src/store/store.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\./(?!vocabulary/)|^\\.\\./(?!domain/)', message: "the store's interfaces import only the vocabulary and the domain" }] }] },
  },
  {
    files: ['src/http/**', 'src/cli/**', 'src/dataset/**', 'src/client/**', 'src/delivery/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '/store/(?!(store|openStore|apiKeys)\\.js$|vocabulary/|imports/importRunner\\.js$|admin/sandboxSweeper\\.js$)',
              message: 'above the store, only its interfaces (store.ts), its vocabulary, openStore.ts and the background runners (imports, the sandbox sweeper)',
            },
          ],
        },
      ],
    },
  },
  {
    // Plain JavaScript has no types to check against: the type-aware rules are off there.
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // The script of the API reference page runs in the browser, after Swagger UI's bundle.
    files: ['src/http/docsPage/*.js'],
    languageOptions: { globals: { ...globals.browser, SwaggerUIBundle: 'readonly' } },
  },
);
