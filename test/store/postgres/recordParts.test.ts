import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { renderReportingBody, renderUser, type StatementLine } from '../../../src/domain/reportingJson.js';
import { renderStatementV2, renderUserReference } from '../../../src/domain/v2Json.js';
import { headOf, headV2Of, planOf, referenceOf, tailOf, tailV2Of } from '../../../src/store/postgres/recordParts.js';
import { tempDatabase } from '../../support/harness.js';
import { onlyOn } from '../../support/testDatabases.js';

/**
 * The SQL that cuts a stored record around its user object (src/store/postgres/recordParts.ts),
 * run by PostgreSQL on bodies rendered as the service renders them, from any strings (quotes,
 * backslashes, `,"user":` spelt inside a value, U+0000, characters outside the BMP): the parts
 * and the user's object join back into the body, v1 and v2, the v2 reference is the one the
 * service renders, and the plan read from the head is the plan's JSON text.
 */
const text = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom(',"user":', ',"payment":', '"standard.user":{}', ',"name":', '\\', '"', '\u0000'));
const userArb = fc.record({
  id: text, email: text, name: text, role: text, currency: text, calculation_currency: text, country: text, code: text,
});
const lineArb = fc.record({ id: text, date: text, plan: text, payment: fc.double({ noNaN: true, noDefaultInfinity: true }), payment_currency: text });
const base: StatementLine = {
  id: '', date: '', plan: '', payment: 0, payment_currency: 'EUR', target: 1000, target_currency: 'EUR', target_achievement: null,
  on_target_earning: 60000, on_target_earning_currency: 'EUR', achievement: 1, achievement_currency: 'EUR',
  metrics: { arr: { value: 3, currency: 'USD' } },
};

test('PostgreSQL cuts any rendered record around its user object, and the parts join back', { skip: onlyOn('postgres') }, async (t) => {
  const { sql } = await tempDatabase(t, 'postgres');
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(lineArb, userArb), { minLength: 1, maxLength: 8 }), async (cases) => {
      const lines = cases.map(([fields]) => ({ ...base, ...fields }));
      const bodies = cases.map(([, user], i) => renderReportingBody(lines[i]!, renderUser(user), ['arr']));
      const bodiesV2 = cases.map(([, user], i) => renderStatementV2(lines[i]!, user, ['arr']));
      const users = cases.map(([, user]) => renderUser(user));
      const rows = await sql.rows(
        `SELECT ${headOf('b')}, ${tailOf('b')}, ${headV2Of('v')}, ${tailV2Of('v')}, ${referenceOf('u')}, ${planOf(headOf('b'))}
         FROM unnest(?::text[], ?::text[], ?::text[]) WITH ORDINALITY AS x (b, v, u, n) ORDER BY n`,
        bodies,
        bodiesV2,
        users,
      );
      for (const [i, [head, tail, headV2, tailV2, reference, plan]] of rows.entries()) {
        const user = cases[i]![1];
        assert.equal(`${head as string}${users[i]!}${tail as string}`, bodies[i]);
        assert.ok((head as string).endsWith(',"user":'));
        assert.equal(reference, renderUserReference(user));
        assert.equal(`${headV2 as string}${renderUserReference(user)}${tailV2 as string}`, bodiesV2[i]);
        assert.equal(plan, JSON.stringify(lines[i]!.plan));
      }
    }),
    { numRuns: 40 },
  );
});
