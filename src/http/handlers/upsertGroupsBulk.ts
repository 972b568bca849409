import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';

/** Placeholder until the bulk upsert lands (issue: bulk group and manager attributions). */
export const upsertGroupsBulk =
  (_deps: HandlerDeps): OperationHandler =>
  () => {
    throw new Error('bulk upsert not implemented yet');
  };
