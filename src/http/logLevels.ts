import type { LevelWithSilent } from 'pino';

/**
 * The levels of the log (pino's), apart from the logger itself: the command line lists and checks
 * them without loading pino.
 */
export type LogLevel = LevelWithSilent;
export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
