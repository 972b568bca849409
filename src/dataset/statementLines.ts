import type { MonthIndex } from '../domain/months.js';
import type { ReportingLineInput } from '../store/vocabulary/tenantWriter.js';
import type { Random } from './random.js';
import type { SalesPerson } from './salesForce.js';
import { SEED_PERIOD, USD_PER_UNIT } from './vocabulary.js';

export const SEED_METRICS = ['new_arr', 'services_revenue'] as const;

/** Yearly raise of quotas and variable pay. */
const YEARLY_RAISE = 1.06;

/**
 * `count` statement lines, lazily, month after month over the seed period (the same number in
 * each month, give or take one), each for a user employed that month. Amounts are in the
 * user's calculation currency, the payment in the user's own currency.
 */
export function* statementLines(
  random: Random,
  people: readonly SalesPerson[],
  count: number,
): Generator<ReportingLineInput> {
  const monthCount = SEED_PERIOD.last - SEED_PERIOD.first + 1;
  let sequence = 0;
  for (let offset = 0; offset < monthCount; offset += 1) {
    const month = SEED_PERIOD.first + offset;
    const employed = people.filter((person) => person.firstMonth <= month && month <= person.lastMonth);
    const linesThisMonth = Math.floor((count * (offset + 1)) / monthCount) - Math.floor((count * offset) / monthCount);
    for (let i = 0; i < linesThisMonth; i += 1) {
      sequence += 1;
      yield statementLine(random, random.pick(employed), month, `stl_${String(sequence).padStart(7, '0')}`);
    }
  }
}

function statementLine(random: Random, person: SalesPerson, month: MonthIndex, id: string): ReportingLineInput {
  const { user, profile } = person;
  const currency = user.calculation_currency;
  const year = Math.floor(month / 12);
  const raise = YEARLY_RAISE ** (year - Math.floor(SEED_PERIOD.first / 12));
  const onTargetEarning = fromUsd((profile.variablePay / 12) * person.payFactor * raise, currency);
  const target = profile.quota === null ? null : fromUsd((profile.quota / 12) * person.quotaFactor * raise, currency);
  const ratio = random.chance(0.05) ? 0 : random.logNormal(Math.log(0.95) + person.performance, 0.35);
  const achievement = target === null ? null : cents(target * ratio);
  const payout = target === null ? random.logNormal(0, 0.3) : payoutRate(ratio) * random.logNormal(0, 0.05);
  const payment = cents(convert(onTargetEarning * payout, currency, user.currency));
  return {
    id,
    user_id: user.id,
    date: dateIn(random, month),
    plan: `${profile.plan} ${year}`,
    payment,
    payment_currency: user.currency,
    target,
    target_currency: currency,
    target_achievement: target === null || achievement === null ? null : Math.round((achievement / target) * 1e4) / 1e4,
    on_target_earning: random.chance(0.03) ? null : onTargetEarning,
    on_target_earning_currency: currency,
    achievement,
    achievement_currency: currency,
    metrics: {
      new_arr: {
        value:
          profile.booksArr && achievement !== null && !random.chance(0.1)
            ? cents(achievement * (0.6 + 0.4 * random.next()))
            : null,
        currency,
      },
      services_revenue: {
        value: random.chance(0.3) ? fromUsd(random.logNormal(Math.log(6000), 0.8), currency) : null,
        currency,
      },
    },
  };
}

/** Share of on-target earnings paid at an achievement ratio: decelerated below 50%, accelerated above 100%, capped. */
function payoutRate(ratio: number): number {
  if (ratio < 0.5) return ratio * 0.5;
  if (ratio <= 1) return ratio;
  return Math.min(3, 1 + (ratio - 1) * 1.5);
}

function cents(amount: number): number {
  return Math.round(amount * 100) / 100;
}

/** A US dollar amount in `currency`, rounded to cents. */
export function fromUsd(usd: number, currency: string): number {
  return cents(usd / USD_PER_UNIT[currency]!);
}

function convert(amount: number, from: string, to: string): number {
  return (amount * USD_PER_UNIT[from]!) / USD_PER_UNIT[to]!;
}

/** A random day of `month` as `YYYY-MM-DD`. */
export function dateIn(random: Random, month: MonthIndex): string {
  const year = Math.floor(month / 12);
  const monthOfYear = (month % 12) + 1;
  const days = new Date(Date.UTC(year, monthOfYear, 0)).getUTCDate();
  return `${year}-${String(monthOfYear).padStart(2, '0')}-${String(random.between(1, days)).padStart(2, '0')}`;
}
