// Part of `npm run build`: writes the contract (openapi/openapi.yaml) as JSON, integers exact, to
// dist/openapi/openapi.json, which the built server reads instead of parsing the YAML at each start.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { contractJsonText } from '../dist/src/http/document.js';

mkdirSync('dist/openapi', { recursive: true });
writeFileSync('dist/openapi/openapi.json', contractJsonText(readFileSync('openapi/openapi.yaml', 'utf8')));
