/**
 * The pure `.ahkai` import planner (validation, conflict policies, vector reuse), in two streaming passes so that a
 * 100 MB / 50k-row archive never has to be held in memory.
 *
 * **Pass 1, `validateImport(lines, options)`** reads the whole archive once and writes nothing.
 * It checks the header and the embedding model, parses every row, asks the store which ids
 * exist (in batches), runs the `error` policy's atomic pre-scan, and decides what happens to
 * every row: insert, overwrite, rename (with its fresh id) or skip. It keeps only ids and one
 * small action per line. Its result carries the exact `ImportSummary` the import will report,
 * so a dry run is pass 1 alone. Any failure (bad header, truncated or corrupt archive, model
 * mismatch, `IMPORT_CONFLICT`) is thrown before a single write.
 *
 * **Pass 2, `planWrites(lines, validation)`** reads the same archive again and yields the
 * writes in file order, in batches: the memory (renamed id applied, links and `superseded_by`
 * re-pointed through the renames of this import), its vector when the file's vectors are
 * reused, else `needsEmbedding`, and whether it replaces a stored memory. Every row is checked
 * against pass 1, so an archive that changed between the passes fails with `changed`.
 *
 * **Keeping rows**: with `keepRowsBytes`, pass 1 also keeps the rows it will write while their
 * estimated size stays within that budget (an archive that outgrows it drops them and is read
 * again). `cachedWrites(validation)` then yields the same batches as pass 2 without a second
 * decompression and parse of the file.
 *
 * `planImport(openLines, options)` runs both passes and collects every write (small archives,
 * tests).
 */
import { describe } from '../domain/describe.ts';
import { MemoryError, invalid, throwIfAborted } from '../errors.ts';
import type { Memory } from '../types.ts';
import { archiveError, invalidArchive, isSameModel, parseHeader } from './format.ts';
import type { ArchiveHeader, ParsedRow } from './format.ts';
import type { ArchiveLine } from './gzip.ts';
import { supersedeCycles, type WrittenLink } from './cycles.ts';
import { readRow } from './row-check.ts';

/** `IMPORT_POLICIES`: what to do when an imported id already exists. */
export const IMPORT_POLICIES = ['skip', 'overwrite', 'rename', 'error'] as const;
export type ConflictPolicy = (typeof IMPORT_POLICIES)[number];

/** One entry of `ImportSummary.errors`: a row that was not imported. */
export interface ImportRowError {
  /** `line:<n>` (the reference uses this for bad JSON and the row id for other failures). */
  where: string;
  /** The row's id when it has one (what the reference reports for non-JSON failures). */
  id: string | null;
  message: string;
}

/** `ImportSummary`. */
export interface ImportSummary {
  imported: number;
  skipped: number;
  overwritten: number;
  renamed: number;
  /**
   * Bad-JSON lines first (in line order), then rows that failed to build or validate, as in the
   * reference; at most {@link MAX_REPORTED_ERRORS} of them.
   */
  errors: ImportRowError[];
  /** How many more rows failed than `errors` lists (absent when it lists them all). */
  errorsOmitted?: number;
  /** `not useVectors and (imported + overwritten + renamed) > 0` — also in a dry run. */
  vectorsRegenerated: boolean;
}

/** One id collision reported by the `error` policy. */
export interface ImportCollision {
  id: string;
  /** The stored memory's text (first 80 characters) or `(duplicate id within import file)`. */
  reason: string;
}

/**
 * What the planner needs to know about the store. `exists` answers for a batch of ids;
 * `texts`, when given, provides the stored texts that the `error` policy reports with each
 * collision (otherwise the reason is `(already in store)`). A plain `(id) => Promise<boolean>`
 * is accepted too.
 */
export interface StoreLookup {
  exists(ids: readonly string[]): Promise<readonly boolean[]>;
  texts?(ids: readonly string[]): Promise<ReadonlyArray<string | null>>;
  /** The `supersededBy` of stored memories (null when absent), to find supersede cycles through them. */
  supersededBy?(ids: readonly string[]): Promise<ReadonlyArray<string | null>>;
}

export interface ImportProgress {
  phase: 'validate' | 'write';
  /** Archive lines read so far (header included). */
  rowsRead: number;
  /** Rows read so far: non-blank lines after the header (what `archiveInfo().rows` counts). Pass 1 only. */
  rows?: number;
  /** Compressed bytes read so far. */
  bytesIn: number;
}

export interface ImportPlanOptions {
  /** Default `skip`. Anything else than the four policies is `INVALID_ARGUMENT`. */
  policy?: ConflictPolicy;
  dryRun?: boolean;
  /** Re-embed when the file's vectors cannot be used; never forces re-embedding. */
  regenerateVectors?: boolean;
  /** The store's embedder: its model id and vector dimension. */
  store: { embedderId: string; dim: number };
  lookup: StoreLookup | ((id: string) => Promise<boolean>);
  /** Fresh ids for the `rename` policy (required when that policy renames a row). */
  newId?: () => string;
  /** Unix seconds used for rows without `created_at`/`last_accessed` (required when a row lacks them). */
  now?: number;
  /** Ids looked up per `exists` call (default 256). */
  lookupBatchSize?: number;
  /**
   * Keep the rows to write in memory, up to about this many bytes (default 0: never), so the
   * writes need no second pass over the file (`cachedWrites`).
   */
  keepRowsBytes?: number;
  signal?: AbortSignal;
  onProgress?: (progress: ImportProgress) => void;
}

/** Why the file's vectors are used or not. */
export interface VectorDecision {
  useVectors: boolean;
  /** `include_vectors` is not false and `embedding_dim > 0`. */
  fileHasVectors: boolean;
  fileModel: string | null;
  fileDim: number;
  storeModel: string;
  storeDim: number;
  /** Why vectors are not reused although the file has them (re-embedding was allowed). */
  rejected?: 'model' | 'dimension' | 'vector';
}

/** Line actions kept between the passes. */
const Action = { None: 0, Insert: 1, Overwrite: 2, Rename: 3, Skip: 4 } as const;
type Action = (typeof Action)[keyof typeof Action];

/** Pass 1's result: everything pass 2 needs, plus the summary a dry run reports. */
export interface ImportValidation {
  header: ArchiveHeader;
  policy: ConflictPolicy;
  dryRun: boolean;
  vectors: VectorDecision;
  /** The final summary of this import (a real run reports exactly this when pass 2 completes). */
  summary: ImportSummary;
  /** Old id → fresh id for every renamed row (last rename wins, as in the reference). */
  renames: Map<string, string>;
  /** Lines in the archive (header included) and its compressed size. */
  lines: number;
  /** Rows in the archive: non-blank lines after the header. */
  rowCount: number;
  bytesIn: number;
  /** Writes pass 2 will yield, and how many of them need embedding. */
  writes: number;
  toEmbed: number;
  /** The `now` used for missing timestamps; pass 2 reuses it. */
  now: number | undefined;
  /**
   * The rows to write, in file order, when they fit in `keepRowsBytes` (else null: pass 2
   * reads the file again). Consumed by `cachedWrites`.
   */
  rows: ParsedRow[] | null;
  /** @internal per-line action and expected id (pass 2's consistency check). */
  readonly plan: { actions: Uint8Array; ids: (string | undefined)[]; renamedTo: Map<number, string> };
}

/** One write of pass 2. */
export interface PlannedWrite {
  lineNo: number;
  /** The memory to store (id already renamed, references re-pointed). */
  memory: Memory;
  /** The file's vector, when vectors are reused and the row has one. */
  vector?: Float32Array;
  /** True when the memory must be embedded from its text before it is written. */
  needsEmbedding: boolean;
  /**
   * `insert`: the id is free. `overwrite`: a memory with this id exists now (in the store, or
   * written earlier by this same import) and must be deleted first. Apply writes in order.
   */
  mode: 'insert' | 'overwrite';
  /** The row's id in the file, when it was renamed. */
  renamedFrom?: string;
  /** `meta.x_houkai_web` of the row, when present. */
  extension?: Record<string, unknown>;
}

export interface WriteBatch {
  writes: PlannedWrite[];
  /** Lines read so far (header included), writes yielded so far, compressed bytes read. */
  rowsRead: number;
  rowsWritten: number;
  bytesIn: number;
}

/** Both passes' result: the brief's `{ writes, summary, renames }`. */
export interface ImportPlan {
  header: ArchiveHeader;
  vectors: VectorDecision;
  summary: ImportSummary;
  renames: Map<string, string>;
  /** Empty for a dry run. */
  writes: PlannedWrite[];
}

/** Row errors an import reports one by one; beyond this only their number (`errorsOmitted`). */
export const MAX_REPORTED_ERRORS = 1000;

const DUPLICATE_REASON = '(duplicate id within import file)';
const IN_STORE_REASON = '(already in store)';

function normaliseLookup(lookup: ImportPlanOptions['lookup']): StoreLookup {
  if (typeof lookup === 'function') {
    return { exists: (ids) => Promise.all(ids.map((id) => lookup(id))) };
  }
  return lookup;
}

/** Python `text[:80]` (code points, not UTF-16 units). */
function first80(text: string): string {
  return Array.from(text).slice(0, 80).join('');
}

function policyOf(policy: unknown): ConflictPolicy {
  const value = policy ?? 'skip';
  if (typeof value !== 'string' || !(IMPORT_POLICIES as readonly string[]).includes(value)) {
    throw invalid(`on_conflict must be one of: ${IMPORT_POLICIES.join(', ')} — got ${describe(value)}`, {
      field: 'policy',
    });
  }
  return value as ConflictPolicy;
}

class ActionTable {
  bytes = new Uint8Array(1024);
  set(lineNo: number, action: Action): void {
    if (lineNo >= this.bytes.length) {
      let size = this.bytes.length;
      while (size <= lineNo) size *= 2;
      const next = new Uint8Array(size);
      next.set(this.bytes);
      this.bytes = next;
    }
    this.bytes[lineNo] = action;
  }
}

interface Pending {
  lineNo: number;
  /** The parsed row when it built; its id is `scanId`. */
  row: ParsedRow | null;
  /** The id the pre-scan uses (`''` when the row has none). */
  scanId: string;
}

function mismatchError(decision: VectorDecision, rejected: 'model' | 'dimension' | 'vector', extra: Record<string, unknown> = {}): MemoryError {
  const file = `file: ${JSON.stringify(decision.fileModel ?? '')}, ${decision.fileDim}-d`;
  const store = `store: ${JSON.stringify(decision.storeModel)}, ${decision.storeDim}-d`;
  const what =
    rejected === 'model'
      ? 'embedding model mismatch'
      : rejected === 'dimension'
        ? 'embedding dimension mismatch'
        : 'archive vector does not match the store dimension';
  return archiveError('MODEL_MISMATCH', `${what} (${file}; ${store}) — pass regenerateVectors to re-embed on import`, {
    reason: rejected,
    fileModel: decision.fileModel,
    fileDim: decision.fileDim,
    storeModel: decision.storeModel,
    storeDim: decision.storeDim,
    ...extra,
  });
}

/**
 * Pass 1: validates the archive and decides every row.
 *
 * - The policy is checked before anything is read (`INVALID_ARGUMENT`).
 * - Header errors are `INVALID_ARCHIVE` (`empty`, `not-json`, `bad-format`, `future-version`);
 *   gzip errors from the line source propagate (`not-gzip`, `truncated`, `corrupt`).
 * - Vectors: the file has vectors when `include_vectors` is not false and
 *   `embedding_dim > 0`. They are reused only when the file's model (if named) is the store's
 *   model (`isSameModel`), `embedding_dim` equals the store's dim and every row vector has
 *   that length. Otherwise, with `regenerateVectors` every row is re-embedded, without it the
 *   import fails with `MODEL_MISMATCH` (before any write). A vectorless file always
 *   re-embeds, whatever its model. `regenerateVectors` never forces re-embedding of usable
 *   vectors. Rows without a vector in a vectors file are embedded individually.
 * - Bad lines become `line:<n>` errors and the import goes on.
 * - `error` policy: every JSON-object row's id (`row.id or meta.id`) is checked against the
 *   store and the earlier rows of the file; any collision throws `IMPORT_CONFLICT` with
 *   `details.collisions` (all of them, `{id, reason}`), even in a dry run.
 * - Other policies, row by row: an id counts as existing when it is in the store or (not in a
 *   dry run) was written earlier by this import. `skip` skips it; `overwrite` replaces it;
 *   `rename` gives the row a fresh id and records `renames[old] = new`. A dry run counts
 *   intra-file duplicates as imported, since nothing it "wrote" exists.
 */
export async function validateImport(lines: AsyncIterable<ArchiveLine>, options: ImportPlanOptions): Promise<ImportValidation> {
  const policy = policyOf(options.policy);
  const dryRun = options.dryRun ?? false;
  const lookup = normaliseLookup(options.lookup);
  // The core draws no ids and reads no clock of its own: both come from the caller.
  const newId =
    options.newId ??
    ((): string => {
      throw new MemoryError('INVALID_ARGUMENT', "The 'rename' policy needs options.newId to draw fresh ids", { field: 'newId' });
    });
  const now = options.now;
  const batchSize = Math.max(1, options.lookupBatchSize ?? 256);
  const { signal, onProgress } = options;

  const iterator = lines[Symbol.asyncIterator]();
  try {
    const first = await iterator.next();
    const headerLine = first.done ? undefined : first.value;
    let header: ArchiveHeader;
    let vectors: VectorDecision;
    try {
      if (headerLine?.invalidUtf8) throw invalidArchive('not-json', 'not an ai-houkai export (the header is not valid UTF-8)');
      header = parseHeader(headerLine?.text);

      // The vector policy, decided from the header before any row is read.
      vectors = {
        useVectors: false,
        fileHasVectors: header.fileHasVectors,
        fileModel: header.source.embeddingModel,
        fileDim: header.source.embeddingDim,
        storeModel: options.store.embedderId,
        storeDim: options.store.dim,
      };
      if (header.fileHasVectors) {
        const modelMismatch = header.source.embeddingModel !== null && !isSameModel(header.source.embeddingModel, options.store.embedderId);
        const dimMismatch = header.source.embeddingDim !== options.store.dim;
        const rejected = modelMismatch ? 'model' : dimMismatch ? 'dimension' : undefined;
        if (rejected && !options.regenerateVectors) throw mismatchError(vectors, rejected);
        if (rejected) vectors.rejected = rejected;
        else vectors.useVectors = true;
      }
    } catch (error) {
      // Damage can garble the first line long before the gzip checksum is read: read on (without
      // parsing), so a damaged file is reported as damaged rather than as a bad header or model.
      if (error instanceof MemoryError && headerLine !== undefined) await drainForDamage(iterator, signal);
      throw error;
    }

    const summary: ImportSummary = { imported: 0, skipped: 0, overwritten: 0, renamed: 0, errors: [], vectorsRegenerated: false };
    const jsonErrors: ImportRowError[] = [];
    const rowErrors: ImportRowError[] = [];
    let errorCount = 0;
    /** Keeps at most MAX_REPORTED_ERRORS of each kind (an archive of a million bad lines must not hold a million messages). */
    const reportError = (list: ImportRowError[], error: ImportRowError): void => {
      errorCount += 1;
      if (list.length < MAX_REPORTED_ERRORS) list.push(error);
    };
    const actions = new ActionTable();
    const ids: (string | undefined)[] = [];
    const renamedTo = new Map<number, string>();
    const renames = new Map<string, string>();
    const inStore = new Map<string, boolean>();
    const written = new Set<string>(); // ids this import writes (real runs only)
    const seen = new Set<string>(); // `error` pre-scan
    const collisions: { id: string; reason: string | null }[] = [];
    let writes = 0;
    let writesWithVector = 0;
    const keepBudget = Math.max(0, options.keepRowsBytes ?? 0);
    let kept: ParsedRow[] | null = keepBudget > 0 && !dryRun ? [] : null;
    let keptBytes = 0;
    let lineCount = headerLine ? 1 : 0;
    let rowCount = 0;
    let bytesIn = headerLine?.bytesIn ?? 0;
    let pending: Pending[] = [];
    let vectorMismatch: { lineNo: number; vectorLength: number } | null = null;
    /** Every write's final id and supersession, for the cycle check; with whether it carries a vector. */
    const links: (WrittenLink & { vector: boolean; action: Action; scanId: string })[] = [];

    const decide = (item: Pending): void => {
      const known = inStore.get(item.scanId) ?? false;
      if (policy === 'error') {
        // The atomic pre-scan, over every JSON-object row.
        if (item.scanId && known) collisions.push({ id: item.scanId, reason: null });
        else if (seen.has(item.scanId)) collisions.push({ id: item.scanId, reason: DUPLICATE_REASON });
        seen.add(item.scanId);
      }
      const row = item.row;
      if (!row) return;
      ids[row.lineNo] = row.id;
      const exists = policy !== 'error' && (known || (!dryRun && written.has(row.id)));
      let action: Action;
      if (!exists) {
        action = Action.Insert;
        summary.imported += 1;
        if (!dryRun) written.add(row.id);
      } else if (policy === 'skip') {
        action = Action.Skip;
        summary.skipped += 1;
      } else if (policy === 'rename') {
        action = Action.Rename;
        const fresh = newId();
        renames.set(row.id, fresh);
        renamedTo.set(row.lineNo, fresh);
        summary.renamed += 1;
        if (!dryRun) written.add(fresh);
      } else {
        action = Action.Overwrite;
        summary.overwritten += 1;
      }
      actions.set(row.lineNo, action);
      if (action !== Action.Skip) {
        const finalId = action === Action.Rename ? renamedTo.get(row.lineNo)! : row.id;
        links.push({ lineNo: row.lineNo, id: finalId, supersededBy: row.memory.supersededBy, vector: row.vector !== undefined, action, scanId: row.id });
        writes += 1;
        if (row.vector) writesWithVector += 1;
        if (kept) {
          keptBytes += rowBytes(row);
          if (keptBytes <= keepBudget) kept.push(row);
          else kept = null; // over budget: pass 2 reads the file again
        }
      }
    };

    const flush = async (): Promise<void> => {
      if (pending.length === 0) return;
      const unknown = [...new Set(pending.map((p) => p.scanId).filter((id) => id !== '' && !inStore.has(id)))];
      if (unknown.length > 0) {
        const answers = await lookup.exists(unknown);
        unknown.forEach((id, i) => inStore.set(id, Boolean(answers[i])));
      }
      for (const item of pending) decide(item);
      pending = [];
      onProgress?.({ phase: 'validate', rowsRead: lineCount, rows: rowCount, bytesIn });
    };

    for (;;) {
      throwIfAborted(signal);
      const next = await iterator.next();
      if (next.done) break;
      const line = next.value;
      lineCount = line.lineNo;
      bytesIn = line.bytesIn;
      const result = readRow(line.text, line.lineNo, { now, invalidUtf8: line.invalidUtf8 });
      if (result === null) continue;
      rowCount += 1;
      if (!result.ok) {
        const error: ImportRowError = { where: result.where, id: result.id || null, message: result.message };
        reportError(result.kind === 'bad-json' ? jsonErrors : rowErrors, error);
        // A row that is a JSON object still takes part in the `error` pre-scan (Python scans
        // every parsed row, even one that later fails to build).
        if (policy === 'error' && result.id !== null) pending.push({ lineNo: result.lineNo, row: null, scanId: result.id });
      } else {
        if (vectors.useVectors && result.vector && result.vector.length !== options.store.dim && !vectorMismatch) {
          // Reported once the whole file has been read: a damaged archive (a byte flipped in a
          // vector) must fail as corrupt, not as a model mismatch that advises regenerateVectors.
          vectorMismatch = { lineNo: result.lineNo, vectorLength: result.vector.length };
          if (options.regenerateVectors) {
            vectors.useVectors = false;
            vectors.rejected = 'vector';
          }
        }
        pending.push({ lineNo: result.lineNo, row: result, scanId: result.id });
      }
      if (pending.length >= batchSize) await flush();
    }
    await flush();
    if (vectorMismatch && !options.regenerateVectors) throw mismatchError(vectors, 'vector', { ...vectorMismatch, vectorError: null });

    // Supersede cycles the import would leave (renamed targets re-pointed as pass 2 will).
    const lookupSuperseded = lookup.supersededBy ? (ids: readonly string[]) => lookup.supersededBy!(ids) : null;
    const finalLinks = links.map((l) => ({ ...l, supersededBy: (l.supersededBy && renames.get(l.supersededBy)) || l.supersededBy }));
    const byLine = new Map(finalLinks.map((l) => [l.lineNo, l]));
    const cycles = await supersedeCycles(finalLinks, lookupSuperseded);
    for (const rejection of cycles) {
      const link = byLine.get(rejection.lineNo)!;
      actions.set(link.lineNo, Action.None);
      if (link.action === Action.Insert) summary.imported -= 1;
      else if (link.action === Action.Rename) summary.renamed -= 1;
      else summary.overwritten -= 1;
      writes -= 1;
      if (link.vector) writesWithVector -= 1;
      reportError(rowErrors, {
        where: `line:${link.lineNo}`,
        id: link.scanId,
        message: `supersede cycle: ${rejection.cycle.map((id) => JSON.stringify(id)).join(' → ')} (every memory on it would be hidden); the row was not imported`,
      });
    }
    if (cycles.length > 0) {
      const dropped = new Set(cycles.map((c) => c.lineNo));
      if (kept) kept = kept.filter((r) => !dropped.has(r.lineNo));
      rowErrors.sort((a, b) => lineOf(a) - lineOf(b));
    }

    if (collisions.length > 0) {
      const needText = [...new Set(collisions.filter((c) => c.reason === null).map((c) => c.id))];
      const texts = new Map<string, string | null>();
      if (lookup.texts && needText.length > 0) {
        for (let at = 0; at < needText.length; at += batchSize) {
          const chunk = needText.slice(at, at + batchSize);
          const answer = await lookup.texts(chunk);
          chunk.forEach((id, i) => texts.set(id, answer[i] ?? null));
        }
      }
      const list: ImportCollision[] = collisions.map((c) => {
        const text = c.reason === null ? texts.get(c.id) : null;
        return { id: c.id, reason: c.reason ?? (typeof text === 'string' ? first80(text) : IN_STORE_REASON) };
      });
      const head = list.slice(0, 10).map((c) => `(${JSON.stringify(c.id)}, ${JSON.stringify(c.reason)})`);
      throw archiveError('IMPORT_CONFLICT', `${list.length} id collision(s) on import; first: [${head.join(', ')}]`, {
        collisions: list,
      });
    }

    summary.errors = [...jsonErrors, ...rowErrors].slice(0, MAX_REPORTED_ERRORS);
    if (errorCount > summary.errors.length) summary.errorsOmitted = errorCount - summary.errors.length;
    const wrote = summary.imported + summary.overwritten + summary.renamed;
    summary.vectorsRegenerated = !vectors.useVectors && wrote > 0;
    return {
      header,
      policy,
      dryRun,
      vectors,
      summary,
      renames,
      lines: lineCount,
      rowCount,
      bytesIn,
      writes,
      toEmbed: vectors.useVectors ? writes - writesWithVector : writes,
      now,
      rows: kept,
      plan: { actions: actions.bytes, ids, renamedTo },
    };
  } finally {
    await iterator.return?.();
  }
}

export interface PlanWritesOptions {
  /** Writes per yielded batch (default 128). */
  batchSize?: number;
  signal?: AbortSignal;
  onProgress?: (progress: ImportProgress) => void;
}

/**
 * Pass 2: re-reads the archive and yields its writes in file order, in
 * batches. Renamed rows get their fresh id; every written row's links and `superseded_by`
 * that point at a renamed id are re-pointed to the new id (the reference rewrites the rows it
 * wrote after the fact; the stored result is the same). Rows already in the store are never
 * touched. A row that no longer matches pass 1 throws `INVALID_ARCHIVE` `changed`.
 */
export async function* planWrites(
  lines: AsyncIterable<ArchiveLine>,
  validation: ImportValidation,
  options: PlanWritesOptions = {},
): AsyncGenerator<WriteBatch> {
  if (validation.dryRun) throw invalid('a dry run writes nothing: there is no second pass');
  const batchSize = Math.max(1, options.batchSize ?? 128);
  const { actions, ids, renamedTo } = validation.plan;
  const changed = (lineNo: number, why: string): MemoryError =>
    invalidArchive('changed', `the archive changed between the two import passes (line ${lineNo}: ${why})`, { lineNo });

  let batch: PlannedWrite[] = [];
  let rowsRead = 0;
  let rowsWritten = 0;
  let bytesIn = 0;
  for await (const line of lines) {
    throwIfAborted(options.signal);
    rowsRead = line.lineNo;
    bytesIn = line.bytesIn;
    if (line.lineNo === 1) continue;
    const action = (actions[line.lineNo] ?? Action.None) as Action;
    if (action === Action.None || action === Action.Skip) continue;
    const row = readRow(line.text, line.lineNo, { now: validation.now, invalidUtf8: line.invalidUtf8 });
    if (!row || !row.ok) throw changed(line.lineNo, 'the row no longer reads');
    if (row.id !== ids[line.lineNo]) throw changed(line.lineNo, `id ${JSON.stringify(row.id)} was ${JSON.stringify(ids[line.lineNo])}`);

    if (action === Action.Rename && !renamedTo.has(line.lineNo)) throw changed(line.lineNo, 'no fresh id recorded');
    batch.push(writeOf(row, action, validation));
    rowsWritten += 1;
    if (batch.length >= batchSize) {
      options.onProgress?.({ phase: 'write', rowsRead, bytesIn });
      yield { writes: batch, rowsRead, rowsWritten, bytesIn };
      batch = [];
    }
  }
  if (rowsWritten !== validation.writes) {
    throw changed(rowsRead, `${rowsWritten} writes instead of ${validation.writes}`);
  }
  if (batch.length > 0) {
    options.onProgress?.({ phase: 'write', rowsRead, bytesIn });
    yield { writes: batch, rowsRead, rowsWritten, bytesIn };
  }
}

/** Reads the rest of the archive without parsing it: the reader throws if it is damaged (or past its bounds). */
async function drainForDamage(iterator: AsyncIterator<ArchiveLine>, signal: AbortSignal | undefined): Promise<void> {
  for (;;) {
    throwIfAborted(signal);
    if ((await iterator.next()).done) return;
  }
}

/** The line number of a row error (`line:<n>`). */
function lineOf(error: ImportRowError): number {
  return Number(error.where.slice(5));
}

/** The estimated memory a kept row holds (its vector, strings and objects). */
function rowBytes(row: ParsedRow): number {
  const m = row.memory;
  let strings = m.text.length + m.id.length * 2 + m.contentHash.length + (m.source?.length ?? 0) + m.supersededBy.length;
  for (const tag of m.tags) strings += tag.length;
  for (const link of m.links) strings += link.to.length + link.rel.length;
  return 640 + (row.vector?.byteLength ?? 0) + 2 * strings + 48 * (m.tags.length + m.links.length);
}

/** A row's write: renamed id applied, links and `superseded_by` re-pointed through this import's renames. */
function writeOf(row: ParsedRow, action: Action, validation: ImportValidation): PlannedWrite {
  const { renames } = validation;
  const memory = row.memory;
  let renamedFrom: string | undefined;
  if (action === Action.Rename) {
    renamedFrom = memory.id;
    memory.id = validation.plan.renamedTo.get(row.lineNo)!;
  }
  if (renames.size > 0) {
    memory.links = memory.links.map((link) => {
      const to = renames.get(link.to);
      return to === undefined ? link : { to, rel: link.rel };
    });
    const superseder = renames.get(memory.supersededBy);
    if (memory.supersededBy && superseder !== undefined) memory.supersededBy = superseder;
  }
  const vector = validation.vectors.useVectors ? row.vector : undefined;
  const write: PlannedWrite = {
    lineNo: row.lineNo,
    memory,
    needsEmbedding: vector === undefined,
    mode: action === Action.Overwrite ? 'overwrite' : 'insert',
  };
  if (vector) write.vector = vector;
  if (renamedFrom !== undefined) write.renamedFrom = renamedFrom;
  if (row.extension) write.extension = row.extension;
  return write;
}

/**
 * Pass 2 from the rows pass 1 kept (`validation.rows`): the same batches as `planWrites`
 * without reading the file again. The rows are consumed (each is yielded once).
 */
export async function* cachedWrites(validation: ImportValidation, options: PlanWritesOptions = {}): AsyncGenerator<WriteBatch> {
  if (validation.dryRun) throw invalid('a dry run writes nothing: there is no second pass');
  const rows = validation.rows;
  if (!rows) throw invalid('pass 1 kept no rows: read the archive again with planWrites');
  validation.rows = null;
  const batchSize = Math.max(1, options.batchSize ?? 128);
  const { actions } = validation.plan;
  for (let at = 0; at < rows.length; at += batchSize) {
    throwIfAborted(options.signal);
    const chunk = rows.slice(at, at + batchSize);
    const writes = chunk.map((row) => writeOf(row, actions[row.lineNo] as Action, validation));
    // Release what was handed out, so a long import does not keep every row to its end.
    rows.fill(null as unknown as ParsedRow, at, at + chunk.length);
    // As pass 2 would report it: a full batch at its last row's line, the final partial one at the end of the file.
    const rowsRead = chunk.length === batchSize ? chunk[chunk.length - 1]!.lineNo : validation.lines;
    options.onProgress?.({ phase: 'write', rowsRead, bytesIn: validation.bytesIn });
    yield { writes, rowsRead, rowsWritten: Math.min(rows.length, at + batchSize), bytesIn: validation.bytesIn };
  }
}

/**
 * Both passes over an archive that can be opened twice (`openLines` is called once per pass),
 * collecting every write. For small archives and tests; the storage layer should drive
 * `validateImport` and `planWrites` itself to keep memory bounded.
 */
export async function planImport(openLines: () => AsyncIterable<ArchiveLine>, options: ImportPlanOptions): Promise<ImportPlan> {
  const validation = await validateImport(openLines(), options);
  const writes: PlannedWrite[] = [];
  if (!validation.dryRun) {
    const passOptions: PlanWritesOptions = { batchSize: 1024 };
    if (options.signal) passOptions.signal = options.signal;
    for await (const batch of planWrites(openLines(), validation, passOptions)) writes.push(...batch.writes);
  }
  return {
    header: validation.header,
    vectors: validation.vectors,
    summary: validation.summary,
    renames: validation.renames,
    writes,
  };
}
