/**
 * The v1 -> v2 mapping of a statement line, as the table in docs/rules.md#v2-reads writes it,
 * written out here again (not taken from the code under test).
 */
export type V1Record = Record<string, unknown> & { id: string; user: { id: string; email: string } };

const amount = (record: V1Record, name: string) => (record[name] === null ? null : { value: record[name], currency: record[`${name}_currency`] });

export function expectedV2Statement(record: V1Record, metricKeys: readonly string[], dimensionKeys: readonly string[]): Record<string, unknown> {
  const v2: Record<string, unknown> = {
    'standard.id': record.id,
    'standard.date': record.date,
    'standard.plan': record.plan,
    'standard.user': { id: record.user.id, email: record.user.email },
    'standard.commission_impact': amount(record, 'payment'),
    'standard.target': amount(record, 'target'),
    'standard.target_achievement': record.target_achievement,
    'standard.on_target_earning': amount(record, 'on_target_earning'),
    'standard.achievement': amount(record, 'achievement'),
  };
  for (const key of metricKeys) v2[`custom.${key}`] = amount(record, key);
  for (const key of dimensionKeys) v2[`custom.${key}`] = record[key];
  return v2;
}
