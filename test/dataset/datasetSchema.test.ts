import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { DatasetElement } from '../../src/dataset/datasetFormat.js';
import { DATASET_SCHEMA, assertValidElement } from '../../src/dataset/datasetSchema.js';
import { DatasetError } from '../../src/domain/datasetError.js';

const example = JSON.parse(readFileSync(new URL('../fixtures/dataset.example.json', import.meta.url), 'utf8'));
const record = example.reporting[0];
const user = example.users[0];

describe('openapi/dataset.schema.json', () => {
  test('is a valid JSON Schema 2020-12 that the whole example file satisfies', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(DATASET_SCHEMA);
    assert.ok(validate(example), ajv.errorsText(validate.errors));
  });

  test('every element of the example passes on its own', () => {
    for (const section of ['metrics', 'dimensions', 'users', 'group_attributions', 'manager_attributions', 'reporting'] as const) {
      example[section].forEach((value: unknown, index: number) => assertValidElement({ kind: section, index, value }));
    }
  });

  const cases: [string, { element: DatasetElement; message: string }][] = [
    ['a payment that is a string', { element: { kind: 'reporting', index: 48211, value: { ...record, payment: '12' } }, message: '$.reporting[48211].payment: must be number' }],
    ['a record without its plan', { element: { kind: 'reporting', index: 2, value: { ...record, plan: undefined } }, message: '$.reporting[2].plan: is required' }],
    ['an unknown field on a record user', { element: { kind: 'reporting', index: 0, value: { ...record, user: { id: 'u', nick: 'x' } } }, message: '$.reporting[0].user.nick: is not a field of this element' }],
    ['a group name that is a number', { element: { kind: 'reporting', index: 0, value: { ...record, region: ['EMEA', 7] } }, message: '$.reporting[0].region[1]: must be string' }],
    ['a metric that is a string', { element: { kind: 'reporting', index: 0, value: { ...record, new_arr: '7' } }, message: '$.reporting[0].new_arr: must be number,null,array' }],
    ['a bad currency companion', { element: { kind: 'reporting', index: 0, value: { ...record, new_arr_currency: 'euro' } }, message: '$.reporting[0].new_arr_currency: must match pattern "^[A-Z]{3}$"' }],
    ['a user without an e-mail', { element: { kind: 'users', index: 3, value: { ...user, email: undefined } }, message: '$.users[3].email: is required' }],
    ['a user with an extra field', { element: { kind: 'users', index: 0, value: { ...user, nickname: 'x' } }, message: '$.users[0].nickname: is not a field of this element' }],
    ['a user whose e-mail is not one', { element: { kind: 'users', index: 0, value: { ...user, email: 'ada' } }, message: '$.users[0].email: must match format "email"' }],
    ['a month that is not one', { element: { kind: 'group_attributions', index: 2, value: { ...example.group_attributions[0], start_date: '2026-13' } }, message: '$.group_attributions[2].start_date: must match pattern "^[0-9]{4}-(0[1-9]|1[0-2])$"' }],
    ['a table record value that is an object', { element: { kind: 'table_records', table: 1, index: 4, value: { id: 'd', name: {} } }, message: '$.tables[1].records[4].name: must be string,number,null' }],
    ['a field type that does not exist', { element: { kind: 'tables', index: 0, value: { key: 't', name: 'T', fields: [{ key: 'k', type: 'money' }] } }, message: '$.tables[0].fields[0].type: must be one of "string", "number", "date", "datetime", "amount", "user"' }],
    ['another format', { element: { kind: 'format', value: 'compdata-dataset/2' }, message: '$.format: must be "compdata-dataset/1"' }],
    ['a metric that is a bare string', { element: { kind: 'metrics', index: 1, value: 'new_arr' }, message: '$.metrics[1]: must be object' }],
  ];
  for (const [name, { element, message }] of cases) {
    test(`refuses ${name} with its JSON path`, () => {
      const value = element.value as Record<string, unknown>;
      if (value && typeof value === 'object') for (const key of Object.keys(value)) if (value[key] === undefined) delete value[key];
      assert.throws(() => assertValidElement(element), (error: unknown) => error instanceof DatasetError && error.message === message);
    });
  }
});
