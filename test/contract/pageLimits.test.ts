import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePageRequest, type LimitBounds } from '../../src/domain/paging.js';
import { contractDocument } from '../../src/http/document.js';
import { contractPageLimits, pageLimits } from '../../src/http/pageLimits.js';

type Json = Record<string, any>;

/** A fresh copy of the contract's definition with the schemas of `Limit` and `V2Limit` changed. */
function changedContract(limit: Partial<LimitBounds>, v2Limit: Partial<LimitBounds>): Json {
  const definition = structuredClone(contractDocument().definition) as Json;
  Object.assign(definition.components.parameters.Limit.schema, limit);
  Object.assign(definition.components.parameters.V2Limit.schema, v2Limit);
  return definition;
}

describe("the bounds of limit are the contract's", () => {
  const { definition } = contractDocument();
  const schemaOf = (name: string) => ((definition.components as Json).parameters[name] as Json).schema as Json;
  const stated = (name: string) => ({ minimum: schemaOf(name).minimum, maximum: schemaOf(name).maximum, default: schemaOf(name).default });

  test('the handlers page every operation that takes a limit within the bounds its schema states', () => {
    const used = contractPageLimits() as Record<string, LimitBounds>;
    const v1 = ['getReportingRecords', 'getGroupAttributions', 'getManagerAttributions', 'getTableRecords'];
    const v2 = ['getV2Statements', 'getV2Records'];
    assert.deepEqual(Object.keys(used).sort(), [...v1, ...v2].sort());
    for (const operationId of v1) assert.deepEqual(used[operationId], stated('Limit'), operationId);
    for (const operationId of v2) assert.deepEqual(used[operationId], stated('V2Limit'), operationId);
  });

  test('a changed contract changes the bounds, and pages are parsed within them', () => {
    const limits = pageLimits(changedContract({ maximum: 3000, default: 100 }, { minimum: 2, maximum: 50, default: 7 }));
    assert.deepEqual(limits.getTableRecords, { minimum: 0, maximum: 3000, default: 100 });
    assert.deepEqual(limits.getV2Records, { minimum: 2, maximum: 50, default: 7 });
    assert.deepEqual(parsePageRequest(undefined, undefined, limits.getTableRecords), { offset: 0n, limit: 100 });
    assert.deepEqual(parsePageRequest(undefined, '2500', limits.getTableRecords), { offset: 0n, limit: 2500 });
    const refused = parsePageRequest(undefined, '3001', limits.getTableRecords);
    assert.deepEqual(refused, [{ pointer: '/query/limit', message: 'must be an integer from 0 to 3000' }]);
  });

  test('a limit that lacks a bound is an error', () => {
    const definition = changedContract({}, { default: undefined });
    assert.throws(() => pageLimits(definition), /limit of getV2\w+ has no integer default/);
  });
});
