import type { TableField, TableRecordInput } from '../domain/tableJson.js';
import type { Random } from './random.js';
import type { SalesPerson } from './salesForce.js';
import { dateIn, fromUsd } from './statementLines.js';
import { COMPANY_KINDS, COMPANY_WORDS, DEAL_KINDS, DEAL_STAGES, PRODUCTS } from './vocabulary.js';

export const DEALS_TABLE: { key: string; name: string; fields: readonly TableField[] } = {
  key: 'deals',
  name: 'Deals',
  fields: [
    { key: 'name', type: 'string' },
    { key: 'owner_id', type: 'user' },
    { key: 'close_date', type: 'datetime' },
    { key: 'product', type: 'string' },
    { key: 'amount', type: 'amount' },
    { key: 'stage', type: 'string' },
  ],
};

/** One deals record per statement lines of five, and never fewer than 100. */
export function dealCount(statementLineCount: number): number {
  return Math.max(100, Math.floor(statementLineCount / 5));
}

const CLOSING_MINUTES = [0, 15, 30, 45];

/**
 * `count` deals, lazily, owned by the users whose role owns deals (by anyone when none does),
 * each closing during its owner's employment, its amount in the owner's currency.
 */
export function* dealRecords(
  random: Random,
  people: readonly SalesPerson[],
  count: number,
): Generator<TableRecordInput> {
  const dealOwners = people.filter((person) => person.profile.ownsDeals);
  const owners = dealOwners.length > 0 ? dealOwners : people;
  for (let sequence = 1; sequence <= count; sequence += 1) {
    const owner = random.pick(owners);
    const month = random.between(owner.firstMonth, owner.lastMonth);
    const [product, sizeFactor] = random.pick(PRODUCTS);
    yield {
      id: `deal_${String(sequence).padStart(6, '0')}`,
      name: `${random.pick(COMPANY_WORDS)} ${random.pick(COMPANY_KINDS)} - ${random.pick(DEAL_KINDS)}`,
      owner_id: owner.user.id,
      close_date: closeDate(random, month),
      product,
      amount: fromUsd(random.logNormal(Math.log(30_000), 0.9) * sizeFactor, owner.user.currency),
      amount_currency: owner.user.currency,
      stage: random.weighted(DEAL_STAGES),
    };
  }
}

/** A working-hours instant of `month`, ISO 8601 UTC with milliseconds. */
function closeDate(random: Random, month: number): string {
  const hour = String(random.between(8, 18)).padStart(2, '0');
  const minute = String(random.pick(CLOSING_MINUTES)).padStart(2, '0');
  return `${dateIn(random, month)}T${hour}:${minute}:00.000Z`;
}
