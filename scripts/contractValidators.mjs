// Part of `npm run build`, after contractJson.mjs: compiles the request validators of both
// contracts (openapi/openapi.yaml, openapi/admin.yaml) as a server builds them, and writes their
// code, Ajv's standalone output, to dist/openapi/validators.cjs, each under the key that finds it
// (src/http/builtValidators.ts). A server run from the build then loads them instead of
// compiling them at its start.
import { rmSync, writeFileSync } from 'node:fs';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { BUILT_VALIDATORS } from '../dist/src/http/builtValidators.js';
import { recordValidators } from '../dist/src/http/contractAjv.js';
import { contractBackend } from '../dist/src/http/contractBackend.js';
import { adminDocument, contractDocument } from '../dist/src/http/document.js';

// Compiled anew: an earlier build's validators would be taken instead.
rmSync(BUILT_VALIDATORS, { force: true });
const sources = new Map();
recordValidators((key, ajv, validate) => sources.set(key, standaloneCode(ajv, validate)));

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
for (const { definition } of [contractDocument(), adminDocument()]) {
  const operationIds = Object.values(definition.paths).flatMap((item) => METHODS.map((method) => item[method]?.operationId).filter(Boolean));
  const schemes = Object.keys(definition.components?.securitySchemes ?? {});
  await contractBackend(definition, operationIds, Object.fromEntries(schemes.map((scheme) => [scheme, async () => false])));
}

const entries = [...sources].map(([key, code]) => `${JSON.stringify(key)}: (() => {\nconst module = { exports: {} };\n${code}\nreturn module.exports;\n})(),`);
writeFileSync(BUILT_VALIDATORS, `// Written by scripts/contractValidators.mjs (npm run build): do not edit.\n'use strict';\nmodule.exports = {\n${entries.join('\n')}\n};\n`);
