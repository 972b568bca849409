/**
 * A dataset that cannot be loaded: `path` is the JSON path of the offending value in the
 * dataset (`$.reporting[48211].payment`), and the message reads `<path>: <reason>`.
 */
export class DatasetError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}
