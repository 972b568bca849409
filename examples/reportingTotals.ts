/**
 * Walks every statement reporting record of a tenant and prints, for each group of the
 * dimensions `region` and `segment`, how many records it has and the totals of `payment` and of
 * the metric `new_arr`, per currency (records of no group count under `(none)`).
 *
 *   COMPDATA_URL=http://127.0.0.1:8080 COMPDATA_API_KEY=cdk_... node --import tsx examples/reportingTotals.ts
 *
 * The names fit the tenant of `make demo` (and `compdata seed`). The output is tab-separated:
 *
 *   dimension  group  records  payment               new_arr
 *   region     EMEA   4120     1234567.50 EUR        98765.00 EUR, 1200.00 USD
 */
import { createClient, ProblemError } from 'compdata/client';

const DIMENSIONS = ['region', 'segment'] as const;
/** The custom fields read here: they come typed (`new_arr: number | null`, `region: string[]`). */
type Fields = { metrics: 'new_arr'; dimensions: (typeof DIMENSIONS)[number] };

interface Totals {
  records: number;
  /** Sums by currency code. */
  payment: Map<string, number>;
  newArr: Map<string, number>;
}

const apiKey = process.env.COMPDATA_API_KEY;
if (!apiKey) {
  console.error('Set COMPDATA_API_KEY (and COMPDATA_URL, default http://127.0.0.1:8080).');
  process.exit(2);
}
const client = createClient({ baseUrl: process.env.COMPDATA_URL ?? 'http://127.0.0.1:8080', apiKey });

const totals = new Map<string, Totals>();
const add = (sums: Map<string, number>, currency: string, value: number) => sums.set(currency, (sums.get(currency) ?? 0) + value);

try {
  for await (const record of client.reporting.records<Fields>()) {
    for (const dimension of DIMENSIONS) {
      const groups = record[dimension].length > 0 ? record[dimension] : ['(none)'];
      for (const group of groups) {
        const key = `${dimension}\t${group}`;
        const sums: Totals = totals.get(key) ?? { records: 0, payment: new Map(), newArr: new Map() };
        totals.set(key, sums);
        sums.records += 1;
        add(sums.payment, record.payment_currency, record.payment);
        if (record.new_arr !== null) add(sums.newArr, record.new_arr_currency, record.new_arr);
      }
    }
  }
} catch (error) {
  if (!(error instanceof ProblemError)) throw error;
  // The server's problem document: status, title, detail, pointers, and the request id to quote.
  console.error(`error: ${error.message}`);
  process.exit(1);
}

const amounts = (sums: Map<string, number>) =>
  [...sums].sort(([a], [b]) => (a < b ? -1 : 1)).map(([currency, total]) => `${total.toFixed(2)} ${currency}`).join(', ') || '-';

console.log(['dimension', 'group', 'records', 'payment', 'new_arr'].join('\t'));
for (const [key, sums] of [...totals].sort(([a], [b]) => (a < b ? -1 : 1))) {
  console.log([key, sums.records, amounts(sums.payment), amounts(sums.newArr)].join('\t'));
}
