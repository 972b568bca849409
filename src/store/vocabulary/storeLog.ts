/** Where the store reports what goes wrong in the background (pino's signature). */
export interface StoreLog {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}
