/**
 * What an archive holds, read without touching any store (the import preview): the header,
 * the rows the import will read, and what the import would report or refuse that the file alone
 * already tells —
 *
 * - a refusal: a header from a newer ai-houkai (`future-version`) is read for the preview, but
 *   the import refuses it, so the preview says so instead of offering an import;
 * - row problems, as the import will report them: lines that are not JSON, rows that do not
 *   build (missing id or text, bad fields: the import's own row parser decides), and ids that
 *   appear more than once in the file (the later rows collide with the first: skipped,
 *   overwritten or renamed by the policy, refused by `error`).
 *
 * Pure over the archive's lines; `archiveInfo` (store-ops.ts) feeds it the decompressed file.
 */
import { MemoryError, throwIfAborted } from '../errors.ts';
import { invalidArchive, parseHeader, rowFromLine, type ArchiveHeader } from './format.ts';
import type { ArchiveLine } from './gzip.ts';

/** Row problems listed in full; beyond this only counted. */
export const PREVIEW_PROBLEM_LIMIT = 100;

export interface ArchiveRowProblem {
  /** `line:<n>`, as the import's row errors. */
  where: string;
  id: string | null;
  kind: 'bad-json' | 'malformed' | 'duplicate-id';
  message: string;
}

export interface ArchiveRefusal {
  /** The code the import fails with. */
  code: string;
  /** `details.reason` of that error. */
  reason: string;
  message: string;
}

export interface ArchiveContents {
  header: ArchiveHeader | null;
  raw: Record<string, unknown>;
  /** Rows after the header (blank lines are not rows): what the import's progress counts. */
  rows: number;
  /** Rows that parse and build: what the import can write (before id collisions with the store). */
  validRows: number;
  /** The first `PREVIEW_PROBLEM_LIMIT` problems, in line order. */
  problems: ArchiveRowProblem[];
  /** All problems, listed or not. */
  problemCount: number;
  /** Rows whose id appeared on an earlier line. */
  duplicateIds: number;
  refusal: ArchiveRefusal | null;
}

/** Reads an archive's lines (header first) into its preview; header errors other than a newer version throw as the import would. */
export async function previewLines(lines: AsyncIterable<ArchiveLine>, options: { signal?: AbortSignal; now: number }): Promise<ArchiveContents> {
  let header: ArchiveHeader | null = null;
  let raw: Record<string, unknown> = {};
  let refusal: ArchiveRefusal | null = null;
  let seenHeader = false;
  let rows = 0;
  let validRows = 0;
  let problemCount = 0;
  let duplicateIds = 0;
  const problems: ArchiveRowProblem[] = [];
  const firstLine = new Map<string, number>();
  const note = (problem: ArchiveRowProblem): void => {
    problemCount += 1;
    if (problems.length < PREVIEW_PROBLEM_LIMIT) problems.push(problem);
  };

  let headerError: unknown;
  for await (const line of lines) {
    throwIfAborted(options.signal);
    if (headerError !== undefined) continue; // read on: a damaged file fails as damaged, not as a bad header
    if (!seenHeader) {
      seenHeader = true;
      if (line.invalidUtf8) {
        headerError = invalidArchive('not-json', 'not an ai-houkai export (the header is not valid UTF-8)');
        continue;
      }
      try {
        header = parseHeader(line.text);
        raw = header.raw;
      } catch (error) {
        const reason = (error as MemoryError).details?.['reason'];
        if (!(error instanceof MemoryError) || reason !== 'future-version') {
          headerError = error;
          continue;
        }
        raw = JSON.parse(line.text) as Record<string, unknown>;
        refusal = {
          code: error.code,
          reason,
          message: `This archive was written by a newer AI-Houkai (format version ${String(raw['version'])}); this app reads version 1 and cannot import it.`,
        };
      }
      continue;
    }
    const row = rowFromLine(line.text, line.lineNo, { invalidUtf8: line.invalidUtf8, now: options.now });
    if (row === null) continue;
    rows += 1;
    if (!row.ok) {
      note({ where: row.where, id: row.id || null, kind: row.kind === 'bad-json' ? 'bad-json' : 'malformed', message: row.message });
      continue;
    }
    validRows += 1;
    const first = firstLine.get(row.id);
    if (first === undefined) {
      firstLine.set(row.id, row.lineNo);
    } else {
      duplicateIds += 1;
      note({ where: `line:${row.lineNo}`, id: row.id, kind: 'duplicate-id', message: `id ${JSON.stringify(row.id)} already used on line ${first}` });
    }
  }
  if (headerError !== undefined) throw headerError;
  if (!seenHeader) parseHeader(undefined); // an empty file: the import's `empty` error
  return { header, raw, rows, validRows, problems, problemCount, duplicateIds, refusal };
}
