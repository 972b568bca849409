// Part of `npm run build`: writes the contract (openapi/openapi.yaml) and the administration
// API's document (openapi/admin.yaml) as JSON, integers exact, to dist/openapi/openapi.json and
// admin.json, which the built server reads instead of parsing the YAML at each start.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { contractJsonText } from '../dist/src/http/document.js';

mkdirSync('dist/openapi', { recursive: true });
for (const name of ['openapi', 'admin']) {
  writeFileSync(`dist/openapi/${name}.json`, contractJsonText(readFileSync(`openapi/${name}.yaml`, 'utf8')));
}
