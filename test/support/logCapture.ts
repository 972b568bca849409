import { createLogger, type LogLevel, type Logger } from '../../src/http/logging.js';

/** A real logger (pino) whose lines are kept in memory, for tests that read the logs. */
export interface CapturedLogs {
  logger: Logger;
  /** Everything written so far, as text. */
  text(): string;
  /** Every line written so far, parsed. */
  entries(): Record<string, any>[];
}

export function captureLogs(level: LogLevel = 'info'): CapturedLogs {
  const lines: string[] = [];
  const logger = createLogger(level, { write: (line: string) => void lines.push(line) });
  return {
    logger,
    text: () => lines.join(''),
    entries: () => lines.map((line) => JSON.parse(line) as Record<string, any>),
  };
}
