/**
 * Streaming `.ahkai` export: header line, then one Python-style row per kept
 * memory, gzip-compressed into a `ReadableStream` (one member, level 6, no name, mtime 0).
 */
import { MemoryError, invalid, throwIfAborted } from '../errors.ts';
import type { Memory } from '../types.ts';
import { canonicalModelName, serializeHeader, serializeRow } from './format.ts';
import type { PyJson } from './format.ts';
import { createGzipWriter } from './gzip.ts';
import type { GzipLevel } from './gzip.ts';

/** Characters of serialized rows gathered before they are handed to the compressor. */
const WRITE_CHARS = 128 * 1024;

/** One memory to export, with its stored vector when there is one. */
export interface ExportItem {
  memory: Memory;
  vector?: Float32Array | null;
  /** Written under `meta.x_houkai_web` when non-empty (AI-Houkai ignores it). */
  extension?: { readonly [key: string]: PyJson };
}

/** The export filters. Empty arrays mean "no filter", like Python's `if types:`. */
export interface ExportFilter {
  /** Keep superseded (soft-deleted) rows. Default false. */
  includeSuperseded?: boolean;
  /** Keep only these types. */
  types?: readonly string[] | null;
  /** Keep rows sharing at least one tag with these. */
  tags?: readonly string[] | null;
  /** Drop rows with `created_at < since`. */
  since?: number | null;
}

export interface ExportOptions extends ExportFilter {
  /** Write each row's vector. Default true (Python's default). */
  includeVectors?: boolean;
  /** gzip level, default 6. */
  level?: GzipLevel;
  signal?: AbortSignal;
}

/** What the header's `source` says about the store. */
export interface ExportSourceInfo {
  /** `source.collection`: the store name. */
  collection: string;
  /**
   * The store's embedder id. It is written as `canonicalModelName(id)`, so an archive of a
   * `Xenova/all-MiniLM-L6-v2` store says `all-MiniLM-L6-v2`, the name AI-Houkai's Python
   * store compares against (exactly) before reusing the vectors.
   */
  embeddingModel: string;
  /** The store's vector dimension (written as `embedding_dim` when vectors are included). */
  embeddingDim: number;
  /**
   * Number of rows that pass the filters, for `source.count` (the header precedes the rows).
   * When omitted, `source` must be a factory (or an array) and a counting pass runs first.
   */
  count?: number;
  /** `exported_at` in Unix seconds. */
  exportedAt: number;
}

export interface ExportSummary {
  /** Rows written. */
  count: number;
  /** What the header said (differs from `count` only when a given `count` was stale). */
  headerCount: number;
  /** Compressed bytes produced. */
  bytes: number;
  vectorsIncluded: boolean;
}

export interface ExportHooks {
  /** After each compressed chunk: rows written and compressed bytes so far. */
  onProgress?: (progress: { rowsWritten: number; bytes: number }) => void;
  /** Once, after the gzip trailer was enqueued. */
  onComplete?: (summary: ExportSummary) => void;
}

/** Items to export: a one-shot (async) iterable, an array, or a factory (re-iterable, for the counting pass). */
export type ExportSource = AsyncIterable<ExportItem> | Iterable<ExportItem> | (() => AsyncIterable<ExportItem> | Iterable<ExportItem>);

/**
 * The export filter: a row is dropped if it is superseded (unless `includeSuperseded`), if its type
 * is not in `types`, if its tags share nothing with `tags`, or if `created_at < since`.
 * Expired (TTL) rows and rows outside their valid-time interval are kept.
 */
export function keepForExport(memory: Memory, filter: ExportFilter = {}): boolean {
  if (memory.supersededBy && !filter.includeSuperseded) return false;
  if (filter.types && filter.types.length > 0 && !filter.types.includes(memory.type)) return false;
  if (filter.tags && filter.tags.length > 0 && !memory.tags.some((tag) => filter.tags?.includes(tag))) return false;
  if (filter.since !== null && filter.since !== undefined && memory.createdAt < filter.since) return false;
  return true;
}

function iterate(source: AsyncIterable<ExportItem> | Iterable<ExportItem>): AsyncIterator<ExportItem> | Iterator<ExportItem> {
  return Symbol.asyncIterator in source
    ? (source as AsyncIterable<ExportItem>)[Symbol.asyncIterator]()
    : (source as Iterable<ExportItem>)[Symbol.iterator]();
}

function checkStrings(value: unknown, field: string): void {
  if (value === null || value === undefined) return;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw invalid(`${field} must be an array of strings`, { field });
}

/**
 * Streams an archive of `source` (memories in `created_at` ascending order, as the reference
 * writes them; the order is not re-checked) as gzip bytes.
 *
 * The header is Python's: `options.types`/`tags` sorted or null, `since` null when not
 * given, `include_vectors` as asked, `embedding_dim` = the store dim when vectors are included
 * and at least one row is written, else 0. Each kept memory is one `serializeRow` line; its
 * vector is written when vectors are included and the item has one (a row without a vector
 * is re-embedded by an importer). A vector whose length is not `embeddingDim` fails the
 * stream with `DIMENSION_MISMATCH`.
 */
export function exportRows(
  source: ExportSource,
  options: ExportOptions = {},
  info: ExportSourceInfo,
  hooks: ExportHooks = {},
): ReadableStream<Uint8Array> {
  checkStrings(options.types, 'types');
  checkStrings(options.tags, 'tags');
  if (options.since !== null && options.since !== undefined && !Number.isFinite(options.since)) {
    throw invalid('since must be a finite number', { field: 'since' });
  }
  if (info.count === undefined && typeof source !== 'function' && !Array.isArray(source)) {
    throw invalid('exportRows needs info.count, or a source it can iterate twice (a factory or an array)', { field: 'count' });
  }
  const includeVectors = options.includeVectors ?? true;
  const filter: ExportFilter = {
    includeSuperseded: options.includeSuperseded ?? false,
    types: options.types ?? null,
    tags: options.tags ?? null,
    since: options.since ?? null,
  };
  const open = (): AsyncIterator<ExportItem> | Iterator<ExportItem> => iterate(typeof source === 'function' ? source() : source);
  const writer = createGzipWriter({ level: options.level ?? 6 });

  let rows: AsyncIterator<ExportItem> | Iterator<ExportItem> | undefined;
  // Rows are compressed in batches of about WRITE_CHARS (fflate's cost per push is high).
  let pendingText: string[] = [];
  let pendingLength = 0;
  let headerCount = 0;
  let count = 0;
  let bytes = 0;

  const emit = (controller: ReadableStreamDefaultController<Uint8Array>, chunks: Uint8Array[]): void => {
    for (const chunk of chunks) {
      bytes += chunk.length;
      controller.enqueue(chunk);
    }
    if (chunks.length > 0) hooks.onProgress?.({ rowsWritten: count, bytes });
  };

  const start = async (controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> => {
    if (info.count !== undefined) headerCount = info.count;
    else {
      const counter = open();
      try {
        for (;;) {
          throwIfAborted(options.signal);
          const next = await counter.next();
          if (next.done) break;
          if (keepForExport(next.value.memory, filter)) headerCount += 1;
        }
      } finally {
        await counter.return?.();
      }
    }
    const header = serializeHeader({
      exportedAt: info.exportedAt,
      collection: info.collection,
      embeddingModel: canonicalModelName(info.embeddingModel),
      embeddingDim: includeVectors && headerCount > 0 ? info.embeddingDim : 0,
      count: headerCount,
      includeVectors,
      includeSuperseded: filter.includeSuperseded ?? false,
      types: filter.types ?? null,
      tags: filter.tags ?? null,
      since: filter.since ?? null,
    });
    emit(controller, writer.write(`${header}\n`));
    rows = open();
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        await pullRows(controller);
      } catch (error) {
        await rows?.return?.();
        throw error;
      }
    },
    async cancel() {
      await rows?.return?.();
    },
  });

  async function pullRows(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    if (!rows) await start(controller);
    const iterator = rows as AsyncIterator<ExportItem> | Iterator<ExportItem>;
    for (;;) {
      throwIfAborted(options.signal);
      const next = await iterator.next();
      if (next.done) {
        if (pendingLength > 0) emit(controller, writer.write(pendingText.join('')));
        emit(controller, writer.end());
        controller.close();
        hooks.onComplete?.({ count, headerCount, bytes, vectorsIncluded: includeVectors });
        return;
      }
      const { memory, vector, extension } = next.value;
      if (!keepForExport(memory, filter)) continue;
      const withVector = includeVectors && vector ? vector : undefined;
      if (withVector && withVector.length !== info.embeddingDim) {
        throw new MemoryError('DIMENSION_MISMATCH', `memory ${memory.id} has a ${withVector.length}-d vector, not ${info.embeddingDim}-d`, {
          id: memory.id,
          expected: info.embeddingDim,
          actual: withVector.length,
        });
      }
      count += 1;
      pendingText.push(`${serializeRow(memory, withVector, extension)}\n`);
      pendingLength += (pendingText[pendingText.length - 1] as string).length;
      if (pendingLength < WRITE_CHARS) continue;
      const chunks = writer.write(pendingText.join(''));
      pendingText = [];
      pendingLength = 0;
      if (chunks.length > 0) {
        emit(controller, chunks);
        return;
      }
    }
  }
}
