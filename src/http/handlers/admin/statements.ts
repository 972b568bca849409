import type { components } from '../../../../generated/admin.js';
import { asciiLowerCase } from '../../../domain/emailKey.js';
import { formatMonth, parseMonth } from '../../../domain/months.js';
import { refusalReason } from '../../../domain/statementLifecycle.js';
import type { StatementSelection, StatementStatusChange } from '../../../store/vocabulary/webhookShapes.js';
import type { OperationHandler } from '../../handlerTypes.js';
import { problems } from '../../problems.js';
import { pathParam, type AdminDeps } from './adminDeps.js';
import { noSuchTenant } from './tenants.js';

type StatusChangeRequest = components['schemas']['StatusChangeRequest'];
type StatusChangeResult = components['schemas']['StatusChangeResult'];

/** The months of the request, checked by the contract's pattern (`YYYY-MM`). */
const month = (text: string): number => parseMonth(text)!;

/** The statements a request takes, in the store's terms; a period whose start is after its end is a 400. */
function selectionOf(request: StatusChangeRequest): StatementSelection {
  if (request.statements) return { statements: request.statements.map(({ user, month: text }) => ({ user, month: month(text) })) };
  if (request.user !== undefined) return { user: request.user };
  const { start_date, end_date } = request.period!;
  if (month(start_date) > month(end_date)) throw problems.badRequest([{ pointer: '/period/start_date', message: 'is after end_date' }]);
  return { period: { start: month(start_date), end: month(end_date) } };
}

const asChange = (change: StatementStatusChange): StatusChangeResult['data'][number] => ({
  id: change.id,
  user: change.user,
  month: formatMonth(change.month),
  from: change.from,
  to: change.to,
});

/**
 * `POST /admin/v1/tenants/{name}/statements/status`: the store's `changeStatementStatus`, as
 * `compdata statements` calls it (docs/rules.md#statements); a change the lifecycle refuses is a
 * 409 pointing at each statement listed that may not make it, nothing changed.
 */
export const changeStatementStatus =
  ({ store, callsWritten }: AdminDeps): OperationHandler =>
  async (api, ctx) => {
    const name = pathParam(api, 'name');
    const request = ctx.state.body as StatusChangeRequest;
    const selection = selectionOf(request);
    const outcome = await store.changeStatementStatus(name, request.status, selection);
    switch (outcome.outcome) {
      case 'unknownTenant':
        throw noSuchTenant(name);
      case 'unknownUser':
        throw problems.notFound(`The tenant has no user with the e-mail address ${JSON.stringify(request.user)}; nothing changed.`);
      case 'missing':
        throw problems.notFound(`The user ${outcome.statement.user} has no statement in ${formatMonth(outcome.statement.month)}; nothing changed.`);
      case 'refused': {
        const listed = 'statements' in selection ? selection.statements : [];
        const errors = outcome.changes.map((change) => ({
          pointer: `/statements/${listed.findIndex((ref) => ref.month === change.month && asciiLowerCase(ref.user) === asciiLowerCase(change.user))}`,
          message: `the statement of ${change.user} in ${formatMonth(change.month)} ${refusalReason(change.from, request.status)}`,
        }));
        throw problems.conflict(`The lifecycle does not allow the change of ${errors.length} statement(s) listed; nothing changed.`, errors);
      }
      case 'changed': {
        if (outcome.calls > 0) callsWritten();
        const body: StatusChangeResult = { count: outcome.changes.length, calls: outcome.calls, data: outcome.changes.map(asChange) };
        ctx.body = body;
      }
    }
  };
