import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DATASET_FORMAT } from '../../src/dataset/datasetFormat.js';
import { EXAMPLE_BYTES, example, exportOf, importInto } from '../support/datasets.js';
import { tempDatabase } from '../support/harness.js';

/**
 * Datasets at the edges of the months the wire form can write, `0000-01` and `9999-12`
 * (issue 15, part 1): an import that cuts stored attributions there leaves no month outside
 * them, and export -> import -> export gives the same bytes.
 *
 * The example has Ada managed by Grace since always, Ada in segment Enterprise from 2026-02
 * and Grace in region North America from 2025-01, all without end.
 */
const ADA = 'ada.lovelace@example.com';
const GRACE = 'grace.hopper@example.com';
const ALAN = 'alan.turing@example.com';

/** Records of Ada on the first and the last day of the range, and attributions cutting at both edges. */
function edgeDataset(): object {
  const adaLine = example().reporting[1];
  return {
    format: DATASET_FORMAT,
    group_attributions: [
      { user: GRACE, group_dimension: 'region', group: 'APAC', start_date: '9999-12', end_date: '9999-12' },
      { user: ADA, group_dimension: 'region', group: 'APAC', start_date: '0000-01', end_date: '0000-01' },
      { user: ADA, group_dimension: 'segment', group: 'SMB', start_date: '9999-12' },
    ],
    manager_attributions: [{ user: ADA, manager: ALAN, start_date: '0000-01', end_date: '0000-02' }],
    reporting: [
      { ...adaLine, id: 'r-first', date: '0000-01-01' },
      { ...adaLine, id: 'r-last', date: '9999-12-31' },
    ],
  };
}

test('an import cutting attributions at 0000-01 and 9999-12 leaves periods of the wire, and round-trips', async (t) => {
  const { store } = await tempDatabase(t);
  await importInto(store, 'acme', EXAMPLE_BYTES);
  await importInto(store, 'acme', edgeDataset());
  const exported = (await exportOf(store, 'acme'))!;
  const dataset = JSON.parse(exported);
  const periods = (items: any[], user: string, field: string) =>
    items.filter((a) => a.user === user).map((a) => [a[field], a.start_date, a.end_date]);
  assert.deepEqual(periods(dataset.manager_attributions, ADA, 'manager'), [
    [ALAN, '0000-01', '0000-02'],
    [GRACE, '0000-03', null],
  ]);
  assert.deepEqual(periods(dataset.group_attributions, GRACE, 'group'), [
    ['North America', '2025-01', '9999-11'],
    ['APAC', '9999-12', '9999-12'],
  ]);
  assert.deepEqual(periods(dataset.group_attributions, ADA, 'group'), [
    ['APAC', '0000-01', '0000-01'],
    ['EMEA', '2026-01', '2026-02'],
    ['North America', '2026-03', null],
    ['Enterprise', '2026-02', '9999-11'],
    ['SMB', '9999-12', null],
  ]);
  const edges = dataset.reporting.filter((r: any) => r.id === 'r-first' || r.id === 'r-last');
  assert.deepEqual(edges.map((r: any) => [r.id, r.date, r.region, r.segment]), [
    ['r-first', '0000-01-01', ['APAC'], []],
    ['r-last', '9999-12-31', ['North America'], ['SMB']],
  ]);

  const other = await tempDatabase(t);
  await importInto(other.store, 'copy', exported);
  assert.equal(await exportOf(other.store, 'copy'), exported);
});
