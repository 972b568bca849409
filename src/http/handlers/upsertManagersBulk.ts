import { upsertGroupsBulk } from './upsertGroupsBulk.js';

/**
 * `PUT /v1/users/managers/bulk` (docs/rules.md#bulk-attributions): the manager items of the
 * groups bulk on their own endpoint. Its body is the groups bulk's with manager items only, so
 * the groups bulk's handler serves it as it is: one implementation of the rules behind both.
 */
export const upsertManagersBulk = upsertGroupsBulk;
