/**
 * One error class for the whole library. Every failure a caller can act on carries a string
 * `code`; `details` holds plain data only, so the error survives `structuredClone` and the
 * worker boundary unchanged.
 */
export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'NOT_FOUND',
  'DIMENSION_MISMATCH',
  'EMBEDDER_MISMATCH',
  'MODEL_UNAVAILABLE',
  'STORAGE_QUOTA',
  'STORAGE_FAILURE',
  'ABORTED',
  'CLOSED',
  'INDEX_CORRUPT',
  'SCHEMA_TOO_NEW',
  'INVALID_ARCHIVE',
  'MODEL_MISMATCH',
  'IMPORT_CONFLICT',
  'CONFLICT',
  'PERMISSION_DENIED',
  'JOURNAL_COMPACTED',
  'STORE_IN_USE',
  'STORE_EXISTS',
  'BUSY',
  'SYNC_AUTH',
  'SYNC_UNREACHABLE',
  'SYNC_KEY',
  'INVALID_CHATS',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class MemoryError extends Error {
  override readonly name = 'MemoryError';
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }

  /** Plain-data form, used by the worker transfer handler and by `toJSON`. */
  toJSON(): { name: 'MemoryError'; code: ErrorCode; message: string; details: Record<string, unknown> } {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }

  static isMemoryError(value: unknown): value is MemoryError {
    return value instanceof MemoryError;
  }
}

/** Shorthand for the common case. */
export function invalid(message: string, details: Record<string, unknown> = {}): MemoryError {
  return new MemoryError('INVALID_ARGUMENT', message, details);
}

/** Throws ABORTED when the signal has fired; call between units of long work. */
export function throwIfAborted(signal: AbortSignal | undefined, details: Record<string, unknown> = {}): void {
  if (signal?.aborted) throw new MemoryError('ABORTED', 'The operation was cancelled', details);
}
