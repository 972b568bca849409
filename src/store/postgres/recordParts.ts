/**
 * A statement reporting record is stored cut around its user (migrations 35 to 40): the text of
 * its body up to and including `"user":` (`head`) and the text after the user object (`tail`),
 * and the same for its v2 text around `"standard.user":` (`head_v2`, `tail_v2`). The user object
 * is kept once per user and month, in the user-month row (`dimension_values.user_json`, and its
 * v2 reference `user_v2`), and joined at read time as the dimension fields are: a change of the
 * user rewrites the user's user-month rows, no record (docs/rules.md#users).
 *
 * The expressions cut a body as domain/reportingJson.ts and domain/v2Json.ts write it, by the
 * keys around the user: inside a JSON string every `"` is escaped, so the first `,"user":`,
 * `,"payment":` (and their v2 counterparts) of a body are those fields. Text only, no JSON
 * function: PostgreSQL refuses to parse a body holding an escaped U+0000, which one may.
 */

/** The head of a v1 body (SQL text expression `body`): up to and including `"user":`. */
export const headOf = (body: string) => `left(${body}, strpos(${body}, ',"user":') + 7)`;
/** The tail of a v1 body: from the comma before `"payment":`. */
export const tailOf = (body: string) => `substr(${body}, strpos(${body}, ',"payment":'))`;
/** The head of a v2 body: up to and including `"standard.user":`. */
export const headV2Of = (body: string) => `left(${body}, strpos(${body}, ',"standard.user":') + 16)`;
/** The tail of a v2 body: from the comma before `"standard.payment":`. */
export const tailV2Of = (body: string) => `substr(${body}, strpos(${body}, ',"standard.payment":'))`;
/** A user's v2 reference `{"id":…,"email":…}` from its v1 object, which starts with those two fields (domain/reportingJson.ts renderUser). */
export const referenceOf = (userJson: string) => `left(${userJson}, strpos(${userJson}, ',"name":') - 1) || '}'`;

/**
 * The v1 text of record `r`, its user from its user-month row `d`, then `rest` (an SQL
 * expression: the dimension fields and the closing brace). Joined in pairs, the head with the
 * user and the tail with the rest, then the two: PostgreSQL copies each `||`'s operands into a
 * new text, and this order costs a page's statement less than left to right
 * (bench/results/rename-postgres-2026-11-28.md).
 */
export const recordOf = (r: string, d: string, rest: string) => `(${r}.head || ${d}.user_json) || (${r}.tail || ${rest})`;
/** The v2 text of record `r` as {@link recordOf} joins the v1 text: `rest` is what follows its fields. */
export const recordV2Of = (r: string, d: string, rest: string) => `(${r}.head_v2 || ${d}.user_v2) || (${r}.tail_v2 || ${rest})`;

/**
 * The plan of a record as JSON text, cut from its head (`head`, an SQL expression): from after
 * `,"plan":` to before `,"user":`, which ends the head. The index by plan is on this expression.
 */
export const planOf = (head: string) => `substr(${head}, strpos(${head}, ',"plan":') + 8, strpos(${head}, ',"user":') - strpos(${head}, ',"plan":') - 8)`;
