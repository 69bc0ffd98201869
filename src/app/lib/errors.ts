/** Turns any failure into words a person can act on, using the MemoryError code and details. */
import { MemoryError } from '../../index.ts';

export interface Problem {
  title: string;
  message: string;
  code?: string;
}

const ARCHIVE_REASONS: Record<string, string> = {
  'not-gzip': 'This file is not an .ahkai archive: it is not gzip-compressed data.',
  empty: 'This archive is empty: it has no header line.',
  'not-json': 'This file is compressed, but its first line is not an AI-Houkai export header.',
  'bad-format': 'This file does not say it is an AI-Houkai export (the header names another format).',
  'future-version': 'This archive was written by a newer version of AI-Houkai than this app can read.',
  truncated: 'This archive is cut short: the file ends before its last block. Copy it again and retry.',
  corrupt: 'This archive is damaged: its compressed data fails the integrity check.',
  'too-long': 'This archive holds a line too long to read safely.',
  changed: 'The file changed while it was being read. Try again once it is complete.',
};

export function problemOf(error: unknown, fallbackTitle = 'Something went wrong'): Problem {
  if (error instanceof MemoryError) {
    const reason = typeof error.details['reason'] === 'string' ? (error.details['reason'] as string) : undefined;
    switch (error.code) {
      case 'INVALID_ARCHIVE':
        return { title: 'Not a readable archive', message: (reason && ARCHIVE_REASONS[reason]) ?? error.message, code: `${error.code}${reason ? ` · ${reason}` : ''}` };
      case 'MODEL_MISMATCH':
        return {
          title: 'Vectors from another model',
          message: 'The archive’s vectors were made by a different embedding model. Choose “Re-embed with this store’s model” to import it.',
          code: error.code,
        };
      case 'IMPORT_CONFLICT': {
        const collisions = Array.isArray(error.details['collisions']) ? (error.details['collisions'] as unknown[]).length : 0;
        return {
          title: 'Some memories already exist',
          message: `${collisions ? `${collisions.toLocaleString()} ${collisions === 1 ? 'id is' : 'ids are'}` : 'Ids are'} already in this store and the policy is “error”, so nothing was imported. Pick skip, overwrite or rename.`,
          code: error.code,
        };
      }
      case 'ABORTED':
        return { title: 'Cancelled', message: 'The operation was cancelled. Nothing was changed.', code: error.code };
      case 'STORAGE_QUOTA':
        return { title: 'Out of storage', message: 'The browser’s storage quota ran out. Nothing was written.', code: error.code };
      case 'NOT_FOUND':
        return { title: 'Not found', message: 'That memory no longer exists (it may have been forgotten in another tab).', code: error.code };
      default:
        return { title: fallbackTitle, message: error.message, code: error.code };
    }
  }
  return { title: fallbackTitle, message: error instanceof Error ? error.message : String(error) };
}

export function describe(error: unknown): string {
  const p = problemOf(error);
  return p.code ? `${p.message} (${p.code})` : p.message;
}
