/**
 * The requests of a server, counted by the server in memory its threads share: at index 0 those
 * in progress (admitted, not yet answered), at 1 those admitted so far (wrapping). The store's
 * background work reads them from its own thread, and gives way to the requests.
 */
export type RequestsInProgress = Int32Array;
