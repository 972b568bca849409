/**
 * The faults an endpoint may ask its calls to meet, for receivers testing themselves
 * (docs/administration.md#faults-for-receivers), in the spirit of the public API's `serve
 * --faults`: each call is, with probability `duplicate`, sent a second time once delivered (the
 * same `webhook-id`, headers and body); with probability `reorder`, held back until the next call
 * of its endpoint has been answered (or {@link HOLD_MS} passed), so that a later call arrives
 * first; and every call waits `delayMs` before it is sent. Pure: the draws come from the
 * `random` given (a seeded generator in tests).
 */
export interface WebhookFaults {
  /** Probabilities from 0 to 1. */
  readonly duplicate: number;
  readonly reorder: number;
  /** Milliseconds, 0 to {@link MAX_FAULT_DELAY_MS}. */
  readonly delayMs: number;
}

export const NO_FAULTS: WebhookFaults = { duplicate: 0, reorder: 0, delayMs: 0 };

/** The longest delay an endpoint may ask for (openapi/admin.yaml's `WebhookFaults`). */
const MAX_FAULT_DELAY_MS = 10_000;

/** The longest a call is held back for a later one to pass it: then it is sent anyway. */
export const HOLD_MS = 2_000;

/** What a call meets: drawn once per claimed call. */
export interface FaultDraw {
  readonly duplicate: boolean;
  readonly holdBack: boolean;
  readonly delayMs: number;
}

/** The longest a call's faults keep it from its attempt: its claim lasts this much longer. */
export const MAX_FAULT_WAIT_MS = MAX_FAULT_DELAY_MS + HOLD_MS;

/** Whether an endpoint's faults are on at all. */
const faultsOn = (faults: WebhookFaults): boolean => faults.duplicate > 0 || faults.reorder > 0 || faults.delayMs > 0;

/** The faults one call meets; `random` gives numbers from 0 up to but not 1. Nothing is drawn for an endpoint without faults. */
export function drawFaults(faults: WebhookFaults, random: () => number): FaultDraw {
  if (!faultsOn(faults)) return { duplicate: false, holdBack: false, delayMs: 0 };
  return { duplicate: random() < faults.duplicate, holdBack: random() < faults.reorder, delayMs: faults.delayMs };
}

/** How an attempt's row names the faults that shaped it (`reorder, delay=500ms`, or `duplicate`); `null` for none. */
export function faultMark(draw: { readonly holdBack: boolean; readonly delayMs: number }): string | null {
  const marks = [...(draw.holdBack ? ['reorder'] : []), ...(draw.delayMs > 0 ? [`delay=${draw.delayMs}ms`] : [])];
  return marks.length === 0 ? null : marks.join(', ');
}

/** How an endpoint's faults are stored: JSON, or `null` when they are all off. */
export const storedFaults = (faults: WebhookFaults): string | null => (faultsOn(faults) ? JSON.stringify(faults) : null);

/** An endpoint's faults as stored ({@link storedFaults}). */
export const faultsOfStored = (text: string | null): WebhookFaults => (text === null ? NO_FAULTS : { ...NO_FAULTS, ...(JSON.parse(text) as Partial<WebhookFaults>) });
