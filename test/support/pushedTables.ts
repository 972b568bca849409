/** The fields of the tables the table-push tests make (those of the fixture's deals table but its date). */
export const PUSHED_TABLE_FIELDS = [
  { key: 'name', type: 'string' },
  { key: 'owner_id', type: 'user' },
  { key: 'seats', type: 'number' },
  { key: 'amount', type: 'amount' },
] as const;
