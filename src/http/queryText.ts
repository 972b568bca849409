/**
 * A query parameter that the contract declares as one string, once openapi-backend has
 * validated the request (a repeated one is a 400 before a handler runs).
 */
export function queryText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
