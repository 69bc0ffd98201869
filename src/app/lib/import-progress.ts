/**
 * The import dialog's numbers, as pure functions (tested in Node against a real import's
 * events): the progress bar's fraction, the line beside it, and why an import cannot start.
 *
 * The bar is monotone and true: checking the file is the first quarter (compressed bytes read,
 * or rows checked), writing the rest (rows written of the rows to write); it reaches 100% only
 * when the last row is written.
 */
import type { ArchiveInfo, ProgressEvent } from '../../index.ts';
import { problemOf, type Problem } from './errors.ts';

export type ImportProgress = Extract<ProgressEvent, { kind: 'import' }>;

/** The share of the bar for checking the file (pass 1); writing takes the rest. */
export const CHECK_SHARE = 0.25;

const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/** 0‥1 for one progress event; `rows` is the preview's row count. */
export function importFraction(p: ImportProgress, rows: number): number {
  if (p.phase === 'read') {
    const part = p.totalBytes ? p.bytes / p.totalBytes : rows ? p.rowsRead / rows : 0;
    return CHECK_SHARE * clamp01(part);
  }
  const total = p.writesTotal ?? 0;
  return CHECK_SHARE + (1 - CHECK_SHARE) * (total > 0 ? clamp01(p.rowsWritten / total) : 0);
}

/** The line beside the bar: rows checked of the file's rows, or memories written of those to write. */
export function importProgressLine(p: ImportProgress | null, rows: number | null, embedding: boolean): string {
  if (!p || p.phase === 'read') {
    const done = Math.min(p?.rowsRead ?? 0, rows ?? Number.POSITIVE_INFINITY);
    return `Checking rows… ${done.toLocaleString()} of ${rows === null ? '?' : rows.toLocaleString()}`;
  }
  const total = p.writesTotal ?? null;
  const noun = (total ?? p.rowsWritten) === 1 ? 'memory' : 'memories';
  const of = total === null ? '' : ` of ${total.toLocaleString()}`;
  return `Writing… ${p.rowsWritten.toLocaleString()}${of} ${noun}${embedding ? ' (embedding on this device)' : ''}`;
}

/** What the preview knows about the file and the person's choices. */
export interface ImportChoice {
  info: Pick<ArchiveInfo, 'refusal' | 'validRows' | 'duplicateIds' | 'hasVectors'>;
  policy: 'skip' | 'overwrite' | 'rename' | 'error';
  /** The archive's vectors cannot be used in this store. */
  needsEmbedding: boolean;
  regenerate: boolean;
}

/** Why the import would fail (so it is not offered), or null when it can start. */
export function importBlocker({ info, policy, needsEmbedding, regenerate }: ImportChoice): string | null {
  if (info.refusal) return info.refusal.message;
  if (info.validRows === 0) return 'No row of this file can be imported.';
  if (policy === 'error' && info.duplicateIds > 0) {
    return `“Stop on conflict” refuses this file: ${info.duplicateIds.toLocaleString()} ${info.duplicateIds === 1 ? 'id repeats' : 'ids repeat'} within it. Choose another policy to import it.`;
  }
  if (needsEmbedding && info.hasVectors && !regenerate) {
    return 'Without re-embedding the import will be refused: the vectors cannot be searched in this store.';
  }
  return null;
}

/** How an import that threw ends: cancelled (what it wrote rolled back: `what` names it) or failed, in words. */
export function importEnding(error: unknown, what: string): { stage: 'cancelled' | 'failed'; problem: Problem } {
  const problem = problemOf(error, 'The import failed');
  if (problem.code === 'ABORTED') return { stage: 'cancelled', problem: { title: 'Import cancelled', message: `Nothing was imported: the ${what} already written were rolled back.`, code: 'ABORTED' } };
  return { stage: 'failed', problem: { ...problem, message: `${problem.message} Nothing was imported.` } };
}
