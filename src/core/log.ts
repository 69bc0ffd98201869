/**
 * Diagnostics, one way out (issue #52 item 2): the library never writes to stdout. Whatever it
 * (or a dependency it can catch) has to say goes through a `log` function, `(level, message) =>
 * void`, that the host may give (`createMemory({ log })`). The default: in Node, warnings and
 * errors to stderr and nothing else (stdout belongs to the program: MCP over stdio, `| jq`); in a
 * browser, the console at the message's level.
 */

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type Log = (level: LogLevel, message: string) => void;

// Not `window`: hnswlib's loader sets it to globalThis in Node while it loads (hnswlib-loader.ts).
const isNode = (): boolean => typeof process !== 'undefined' && typeof process.versions?.node === 'string' && typeof (globalThis as { document?: unknown }).document === 'undefined';

/** The default log (see the module comment). */
export const defaultLog: Log = (level, message) => {
  if (isNode()) {
    if (level === 'warn' || level === 'error') process.stderr.write(`${message}\n`);
    return;
  }
  (console[level] ?? console.log)(message);
};

/** A log that can never break the work it reports on (a host's log that throws is ignored). */
export function safeLog(log: Log | undefined): Log {
  if (!log) return defaultLog;
  return (level, message) => {
    try {
      log(level, message);
    } catch {
      // Diagnostics are advisory.
    }
  };
}
