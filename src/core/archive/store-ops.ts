/**
 * `.ahkai` archives against a store: export in created-at order, info without touching the
 * store, and the two-pass import (validate everything, then write batch by batch with an undo
 * log that is rolled back on any failure or cancellation), so a rejected, truncated or
 * cancelled archive leaves the store exactly as before.
 *
 * An archive whose rows fit in `KEEP_ROWS_BYTES` is decompressed and parsed once: pass 1 keeps
 * the rows it validated and the writes come from them; a bigger one is read a second time, so
 * memory stays bounded. Imported vectors are searchable when their batch commits and reach the
 * HNSW graph in the background (`DeferredIndex`), after the import returns.
 */
import { embed, journalFor, type Using } from '../context.ts';
import { DeferredIndex } from '../services/deferred-index.ts';
import { describe } from '../domain/describe.ts';
import { invalid, throwIfAborted } from '../errors.ts';
import { lowerTrust } from '../domain/trust.ts';
import type { Memory, ProgressEvent, Trust } from '../types.ts';
import { checkBoolean, checkInteger, checkKnownKeys, checkObject, checkTimestamp, checkTrust, checkType, checkTags } from '../domain/validate.ts';
import { exportRows } from './export.ts';
import { gunzipLines, type ArchiveLimits, type ByteSource, type LineOptions } from './gzip.ts';

export type { ArchiveLimits } from './gzip.ts';
import { IMPORT_POLICIES, cachedWrites, planWrites, validateImport, type ConflictPolicy, type ImportSummary } from './plan.ts';
import { previewLines, type ArchiveRefusal, type ArchiveRowProblem } from './preview.ts';

/** What can be imported: a File, Blob, ArrayBuffer, bytes, or a stream of bytes. */
export type ArchiveSource = Blob | ArrayBuffer | Uint8Array | ReadableStream<Uint8Array>;

export interface ExportArchiveOptions {
  includeVectors?: boolean;
  includeSuperseded?: boolean;
  types?: Memory['type'][];
  tags?: string[];
  /** Unix seconds: drop memories created before this. */
  since?: number;
  /**
   * Journal the export and, for a whole one, count it as a backup (the durability reminder).
   * Default true; a read-only or untrusted connection always exports with `false`.
   */
  record?: boolean;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
}

export interface ImportArchiveOptions extends ArchiveLimits {
  onConflict?: ConflictPolicy;
  /**
   * The most trusted level a row is stored with, and no row stays pinned unless this is
   * `trusted` (default): `'untrusted'` imports a stranger's file as untrusted content. A scoped
   * connection below `trusted` always imports with its ceiling.
   */
  maxTrust?: Trust;
  regenerateVectors?: boolean;
  dryRun?: boolean;
  /** Rows written per transaction, default 500. */
  batchSize?: number;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
}

export interface ImportResult {
  imported: number;
  skipped: number;
  overwritten: number;
  renamed: number;
  errors: { where: string; message: string }[];
  /** Rows that failed beyond the first 1,000 listed in `errors` (absent when none). */
  errorsOmitted?: number;
  vectorsRegenerated: boolean;
}

export interface ArchiveInfo {
  header: Record<string, unknown>;
  collection: string | null;
  model: string | null;
  dim: number;
  /** Rows after the header (blank lines are not rows): what the import's progress counts. */
  rows: number;
  /** Rows that parse and build (before any id collision with the store). */
  validRows: number;
  hasVectors: boolean;
  warnings: string[];
  /** Row problems the import will report (broken lines, rows that do not build, ids repeated in the file): the first 100. */
  problems: ArchiveRowProblem[];
  /** All row problems, listed or not. */
  problemCount: number;
  /** Rows whose id appeared on an earlier line of the file. */
  duplicateIds: number;
  /** Why the import will refuse this file whatever the options (e.g. a newer format version), or null. */
  refusal: ArchiveRefusal | null;
}

/** Rows pass 1 may keep for the writes (estimated bytes): about 20k rows with 384-d vectors. */
export const KEEP_ROWS_BYTES = 48 * 2 ** 20;

const EXPORT_KEYS = new Set(['includeVectors', 'includeSuperseded', 'types', 'tags', 'since', 'signal', 'onProgress']);
const IMPORT_KEYS = new Set(['onConflict', 'regenerateVectors', 'dryRun', 'batchSize', 'signal', 'onProgress', 'maxTrust', 'maxDecompressedBytes', 'maxLines']);
const INFO_KEYS = new Set(['maxDecompressedBytes', 'maxLines']);

/** The reader's bounds from an options object (validated; absent ones take the defaults). */
function checkLimits(o: ArchiveLimits): ArchiveLimits {
  const limits: ArchiveLimits = {};
  if (o.maxDecompressedBytes !== undefined) limits.maxDecompressedBytes = checkInteger(o.maxDecompressedBytes, 'maxDecompressedBytes', 1);
  if (o.maxLines !== undefined) limits.maxLines = checkInteger(o.maxLines, 'maxLines', 1);
  return limits;
}

/** Each row as stored under a trust ceiling: at most `ceiling` trusted, and unpinned below `trusted`. */
function capRows(ceiling: Trust): (memory: Memory) => Memory {
  if (ceiling === 'trusted') return (memory) => memory;
  return (memory) => ({ ...memory, trust: lowerTrust(memory.trust, ceiling), pinned: false });
}

/** A source that can be read twice (pass 1 validates, pass 2 writes); streams are buffered compressed. */
async function rereadable(source: ArchiveSource): Promise<{ open(): ByteSource; size: number | null }> {
  if (typeof Blob !== 'undefined' && source instanceof Blob) return { open: () => source, size: source.size };
  if (source instanceof ArrayBuffer) return { open: () => new Uint8Array(source), size: source.byteLength };
  if (source instanceof Uint8Array) return { open: () => source, size: source.byteLength };
  if (source && typeof (source as ReadableStream).getReader === 'function') {
    const chunks: Uint8Array[] = [];
    const reader = (source as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    const blob = new Blob(chunks as BlobPart[]);
    return { open: () => blob, size: blob.size };
  }
  throw invalid('source must be a File, Blob, ArrayBuffer, Uint8Array or ReadableStream', { field: 'source' });
}

/** Streams the store as an `.ahkai` archive (gzip JSON lines, AI-Houkai's format). */
export function exportArchiveStream(ctx: Using<'rows'>, options?: ExportArchiveOptions): ReadableStream<Uint8Array> {
  const o = checkObject<ExportArchiveOptions>(options, 'options');
  checkKnownKeys(o, EXPORT_KEYS, 'options');
  const includeVectors = o.includeVectors === undefined ? true : checkBoolean(o.includeVectors, 'includeVectors');
  const filter = {
    includeSuperseded: o.includeSuperseded === undefined ? false : checkBoolean(o.includeSuperseded, 'includeSuperseded'),
    types: o.types === undefined ? null : (Array.isArray(o.types) ? o.types : [o.types]).map((t) => checkType(t, 'types')),
    tags: o.tags === undefined ? null : checkTags(o.tags),
    since: o.since === undefined ? null : checkTimestamp(o.since, 'since'),
  };
  const source = async function* () {
    for await (const page of ctx.storage.pagesByCreated()) {
      for (const item of page) yield { memory: item.memory, vector: item.vector ?? null };
    }
  };
  return exportRows(
    () => source(),
    { ...filter, includeVectors, ...(o.signal ? { signal: o.signal } : {}) },
    { collection: ctx.name, embeddingModel: ctx.embedder.id, embeddingDim: ctx.embedder.dim, exportedAt: ctx.clock.now() },
    o.onProgress
      ? { onProgress: (p) => o.onProgress!({ kind: 'export', rowsWritten: p.rowsWritten, bytes: p.bytes }) }
      : {},
  );
}

/** The whole archive as a Blob (`application/gzip`). */
export async function exportArchive(ctx: Using<'journal' | 'rows'>, options?: ExportArchiveOptions): Promise<Blob> {
  const chunks: Uint8Array[] = [];
  const reader = exportArchiveStream(ctx, options).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return new Blob(chunks as BlobPart[], { type: 'application/gzip' });
}

/** Header, rows, vector presence, row problems and any refusal, without touching any store (core/archive/preview.ts). */
/** `now`: the import time a row without timestamps would get (Unix seconds). */
export async function archiveInfo(source: ArchiveSource, options: ArchiveLimits | undefined, now: number): Promise<ArchiveInfo> {
  const o = checkObject<ArchiveLimits>(options, 'options');
  checkKnownKeys(o, INFO_KEYS, 'options');
  const limits = checkLimits(o);
  const { open } = await rereadable(source);
  const contents = await previewLines(gunzipLines(open(), limits), { now });
  const { header, raw } = contents;
  const src = (raw['source'] ?? {}) as Record<string, unknown>;
  return {
    header: raw,
    collection: header?.source.collection ?? (typeof src['collection'] === 'string' ? src['collection'] : null),
    model: header?.source.embeddingModel ?? (typeof src['embedding_model'] === 'string' ? src['embedding_model'] : null),
    dim: header?.source.embeddingDim ?? 0,
    rows: contents.rows,
    validRows: contents.validRows,
    hasVectors: header?.fileHasVectors ?? false,
    warnings: [],
    problems: contents.problems,
    problemCount: contents.problemCount,
    duplicateIds: contents.duplicateIds,
    refusal: contents.refusal,
  };
}

/**
 * Imports an archive with AI-Houkai's semantics (policies, dry run, vector reuse or
 * regeneration, `line:N` row errors). Pass 1 validates the whole file before anything is
 * written; pass 2 writes one transaction per batch under an undo log that is rolled back if
 * anything fails or the signal fires, and cleared when the last batch lands.
 */
export async function importArchive(ctx: Using<'imports' | 'rows'>, source: ArchiveSource, options?: ImportArchiveOptions): Promise<ImportResult> {
  const o = checkObject<ImportArchiveOptions>(options, 'options');
  checkKnownKeys(o, IMPORT_KEYS, 'options');
  const policy = o.onConflict === undefined ? 'skip' : o.onConflict;
  if (!(IMPORT_POLICIES as readonly string[]).includes(policy)) {
    throw invalid(`onConflict must be one of: ${IMPORT_POLICIES.join(', ')} — got ${describe(policy)}`, { field: 'onConflict' });
  }
  const dryRun = o.dryRun === undefined ? false : checkBoolean(o.dryRun, 'dryRun');
  const regenerateVectors = o.regenerateVectors === undefined ? false : checkBoolean(o.regenerateVectors, 'regenerateVectors');
  const batchSize = o.batchSize === undefined ? 500 : checkInteger(o.batchSize, 'batchSize', 1, 10_000);
  const cap = capRows(o.maxTrust === undefined ? 'trusted' : checkTrust(o.maxTrust, 'maxTrust'));
  const lineOptions: LineOptions = { ...checkLimits(o), ...(o.signal ? { signal: o.signal } : {}) };
  const { open, size } = await rereadable(source);
  const keepBudget = ctx.settings.keepRowsBytes ?? KEEP_ROWS_BYTES;
  const signal = o.signal;
  // Monotone and true: reading counts rows (as archiveInfo does) and compressed bytes; writing
  // counts rows written against the rows to write (known once pass 1 is done).
  let writesTotal: number | null = null;
  const report = (phase: 'read' | 'write', rowsRead: number, rowsWritten: number, bytes: number): void =>
    o.onProgress?.({ kind: 'import', phase, rowsRead, rowsWritten, bytes, totalBytes: size, writesTotal });

  const validation = await validateImport(gunzipLines(open(), lineOptions), {
    policy,
    dryRun,
    regenerateVectors,
    store: { embedderId: ctx.embedder.id, dim: ctx.embedder.dim },
    lookup: {
      exists: (ids) => ctx.storage.exists([...ids]),
      texts: async (ids) => (await ctx.storage.textsOf([...ids])).map((t) => t ?? null),
      supersededBy: async (ids) => {
        const found = await ctx.storage.getMany([...ids]);
        return ids.map((id) => found.get(id)?.supersededBy ?? null);
      },
    },
    now: ctx.clock.now(),
    newId: () => ctx.ids.next(),
    // A file this big cannot fit (a kept row costs at least ~0.45× its gzipped bytes): read it twice.
    keepRowsBytes: size !== null && size > 3 * keepBudget ? 0 : keepBudget,
    ...(signal ? { signal } : {}),
    onProgress: (p) => report('read', p.rows ?? 0, 0, p.bytesIn),
  });
  const result = (summary: ImportSummary): ImportResult => ({
    imported: summary.imported,
    skipped: summary.skipped,
    overwritten: summary.overwritten,
    renamed: summary.renamed,
    errors: summary.errors.map((e) => ({ where: e.where, message: e.message })),
    ...(summary.errorsOmitted ? { errorsOmitted: summary.errorsOmitted } : {}),
    vectorsRegenerated: summary.vectorsRegenerated,
  });
  if (dryRun || validation.writes === 0) return result(validation.summary);

  const importId = ctx.ids.next();
  // What the journal's one row for this import says: the archive's file name, when it has one.
  const journalMeta: Record<string, unknown> = {
    vectorsPreserved: !validation.summary.vectorsRegenerated,
    ...(typeof File !== 'undefined' && source instanceof File && source.name ? { archive: source.name } : {}),
  };
  // Abandoned imports of other owners go first (their rows would otherwise stay BUSY).
  await ctx.leases.recover();
  const hold = await ctx.leases.begin(importId);
  let written = 0;
  writesTotal = validation.writes;
  report('write', validation.rowCount, 0, validation.bytesIn);
  // The graph insertion waits until the writes are done (it would compete with them for the CPU).
  const release = ctx.index instanceof DeferredIndex ? ctx.index.hold() : () => undefined;
  const passOptions = { batchSize, ...(signal ? { signal } : {}) };
  const batches = validation.rows
    ? cachedWrites(validation, passOptions)
    : planWrites(gunzipLines(open(), lineOptions), validation, passOptions);
  try {
    for await (const batch of batches) {
      throwIfAborted(signal, { written });
      const toEmbed = batch.writes.filter((w) => w.needsEmbedding || !w.vector);
      const embedded = toEmbed.length
        ? await embed(ctx, toEmbed.map((w) => w.memory.text), signal ? { signal } : {})
        : [];
      const vectors = new Map(toEmbed.map((w, i) => [w, embedded[i]!]));
      throwIfAborted(signal, { written });
      const delta = await ctx.storage.importBatch(
        importId,
        batch.writes.map((w) => ({ memory: cap(w.memory), vector: vectors.get(w) ?? w.vector! })),
        journalFor(ctx, 'import', journalMeta, importId),
      );
      ctx.commit(delta, { deferred: true });
      written += batch.writes.length;
      report('write', validation.rowCount, written, validation.bytesIn);
    }
    // A cancel that arrived during the last batch still counts: roll back instead of finishing.
    throwIfAborted(signal, { written });
    await ctx.storage.finishImport(importId);
  } catch (error) {
    ctx.commit(await ctx.storage.rollbackImport(importId));
    throw error;
  } finally {
    hold.end();
    release();
  }
  return result(validation.summary);
}
