import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { exportRows, keepForExport } from '../src/core/archive/export.ts';
import type { ExportItem, ExportOptions, ExportSourceInfo, ExportSummary } from '../src/core/archive/export.ts';
import { parseHeader, rowFromLine } from '../src/core/archive/format.ts';
import type { ParsedRow } from '../src/core/archive/format.ts';
import { collectBytes, gunzipLines } from '../src/core/archive/gzip.ts';
import { planImport } from '../src/core/archive/plan.ts';
import { MemoryError } from '../src/core/errors.ts';
import type { Memory } from '../src/core/types.ts';
import { FIXTURE_DIM, sampleMemories, sampleVectors } from './fixtures/make-archives.ts';

const INFO: ExportSourceInfo = {
  collection: 'mine',
  embeddingModel: 'Xenova/all-MiniLM-L6-v2',
  embeddingDim: FIXTURE_DIM,
  exportedAt: 1790000000.5,
};

const memories = sampleMemories();
const vectors = sampleVectors(memories.length);
const items = (): ExportItem[] => memories.map((memory, i) => ({ memory, vector: vectors[i] ?? null }));

async function exportText(
  source: Parameters<typeof exportRows>[0],
  options: ExportOptions = {},
  info: ExportSourceInfo = INFO,
): Promise<{ bytes: Uint8Array; lines: string[]; summary: ExportSummary | undefined }> {
  let summary: ExportSummary | undefined;
  const bytes = await collectBytes(exportRows(source, options, info, { onComplete: (s) => (summary = s) }));
  const text = zlib.gunzipSync(bytes).toString('utf8');
  expect(text.endsWith('\n')).toBe(true);
  return { bytes, lines: text.slice(0, -1).split('\n'), summary };
}

function rows(lines: string[]): ParsedRow[] {
  return lines.slice(1).map((line, i) => rowFromLine(line, i + 2) as ParsedRow);
}

describe('export header (§1.2)', () => {
  it('is Python\'s header line, with the canonical model name', async () => {
    const { lines } = await exportText(items);
    expect(lines[0]).toBe(
      '{"format":"ai-houkai/export","version":1,"exported_at":1790000000.5,' +
        '"source":{"collection":"mine","embedding_model":"all-MiniLM-L6-v2","embedding_dim":8,"count":3},' +
        '"options":{"include_vectors":true,"include_superseded":false,"types":null,"tags":null,"since":null}}',
    );
  });

  it('records the filters: sorted types and tags, since as a float', async () => {
    const { lines } = await exportText(items, { types: ['semantic', 'episodic'], tags: ['ünïcode', 'prefs', 'b'], since: 1700000000, includeVectors: false });
    const header = JSON.parse(lines[0] as string) as { options: unknown; source: unknown };
    expect(header.options).toEqual({
      include_vectors: false,
      include_superseded: false,
      types: ['episodic', 'semantic'],
      tags: ['b', 'prefs', 'ünïcode'],
      since: 1700000000,
    });
    expect(lines[0]).toContain('"since":1700000000.0}');
    expect(header.source).toMatchObject({ embedding_dim: 0, count: 2 });
  });

  it('an empty export says embedding_dim 0', async () => {
    const { lines } = await exportText(() => [], {}, INFO);
    expect(lines).toHaveLength(1);
    expect(parseHeader(lines[0])).toMatchObject({ source: { embeddingDim: 0, count: 0 }, fileHasVectors: false });
  });
});

describe('export filters (§1.6 step 2)', () => {
  const m = (extra: Partial<Memory>): Memory => ({ ...(memories[0] as Memory), ...extra });

  it('keepForExport applies each rule', () => {
    expect(keepForExport(m({ supersededBy: 'x' }))).toBe(false);
    expect(keepForExport(m({ supersededBy: 'x' }), { includeSuperseded: true })).toBe(true);
    expect(keepForExport(m({ type: 'episodic' }), { types: ['semantic'] })).toBe(false);
    expect(keepForExport(m({ type: 'episodic' }), { types: [] })).toBe(true);
    expect(keepForExport(m({ tags: ['a', 'b'] }), { tags: ['b', 'z'] })).toBe(true);
    expect(keepForExport(m({ tags: ['a'] }), { tags: ['z'] })).toBe(false);
    expect(keepForExport(m({ tags: [] }), { tags: ['z'] })).toBe(false);
    expect(keepForExport(m({ createdAt: 99 }), { since: 100 })).toBe(false);
    expect(keepForExport(m({ createdAt: 100 }), { since: 100 })).toBe(true);
    expect(keepForExport(m({ expiresAt: 1 }))).toBe(true); // expired rows are exported
    expect(keepForExport(m({ validUntil: 1 }))).toBe(true);
  });

  it('drops superseded rows by default, keeps them on request', async () => {
    expect(rows((await exportText(items)).lines).map((r) => r.id)).toEqual(['m-001', 'm-002', 'm-004']);
    const all = await exportText(items, { includeSuperseded: true });
    expect(rows(all.lines).map((r) => r.id)).toEqual(['m-001', 'm-002', 'm-003', 'm-004']);
    expect(all.summary).toMatchObject({ count: 4, headerCount: 4, vectorsIncluded: true });
  });

  it('filters by type, tag overlap and since', async () => {
    expect(rows((await exportText(items, { types: ['feedback', 'episodic'] })).lines).map((r) => r.id)).toEqual(['m-002', 'm-004']);
    expect(rows((await exportText(items, { tags: ['prefs'] })).lines).map((r) => r.id)).toEqual(['m-001', 'm-004']);
    expect(rows((await exportText(items, { since: 1788220800.5 })).lines).map((r) => r.id)).toEqual(['m-002', 'm-004']);
  });
});

describe('export → import round trip', () => {
  it('yields the same memories and float32 vectors', async () => {
    const { lines } = await exportText(items, { includeSuperseded: true });
    const parsed = rows(lines);
    expect(parsed.map((r) => r.memory)).toEqual(memories);
    parsed.forEach((row, i) => {
      const expected = vectors[i] as Float32Array;
      expect(row.vector?.length).toBe(expected.length);
      for (let k = 0; k < expected.length; k++) expect(Object.is(row.vector?.[k], expected[k])).toBe(true);
    });
  });

  it('imports into an empty store with the vectors reused', async () => {
    const bytes = await collectBytes(exportRows(items, { includeSuperseded: true }, { ...INFO, count: 4 }));
    const plan = await planImport(() => gunzipLines(bytes), {
      store: { embedderId: 'Xenova/all-MiniLM-L6-v2', dim: FIXTURE_DIM },
      lookup: async () => false,
    });
    expect(plan.summary).toEqual({ imported: 4, skipped: 0, overwritten: 0, renamed: 0, errors: [], vectorsRegenerated: false });
    expect(plan.writes.map((w) => w.memory)).toEqual(memories);
    expect(plan.writes.map((w) => Array.from(w.vector ?? []))).toEqual(vectors.map((v) => Array.from(v)));
  });

  it('a vectorless export has no vector keys and re-embeds on import', async () => {
    const { lines, bytes } = await exportText(items, { includeVectors: false, includeSuperseded: true });
    expect(lines.slice(1).every((line) => !line.includes('"vector"'))).toBe(true);
    const plan = await planImport(() => gunzipLines(bytes), {
      store: { embedderId: 'other-model', dim: 3 },
      lookup: async () => false,
    });
    expect(plan.summary).toMatchObject({ imported: 4, vectorsRegenerated: true });
  });

  it('a memory without a stored vector is written without one', async () => {
    const source = items().map((item, i) => (i === 0 ? { memory: item.memory } : item));
    const parsed = rows((await exportText(source)).lines);
    expect(parsed[0]?.vector).toBeUndefined();
    expect(parsed[1]?.vector).toBeDefined();
  });

  it('round-trips houkai-web\'s surfacesWhen', async () => {
    const source = [{ memory: { ...(memories[0] as Memory), surfacesWhen: ['src/db/**'] } }];
    const parsed = rows((await exportText(source, { includeVectors: false })).lines);
    expect(parsed[0]?.memory.surfacesWhen).toEqual(['src/db/**']);
  });

  it('keeps the extension object', async () => {
    const source = [{ memory: memories[0] as Memory, extension: { origin: 'houkai-web' } }];
    const parsed = rows((await exportText(source, { includeVectors: false })).lines);
    expect(parsed[0]?.extension).toEqual({ origin: 'houkai-web' });
    expect(parsed[0]?.memory).toEqual(memories[0]);
  });
});

describe('export streaming', () => {
  it('counts first when no count is given, and needs a factory for that', async () => {
    let opened = 0;
    const factory = (): AsyncIterable<ExportItem> => {
      opened += 1;
      return (async function* () {
        yield* items();
      })();
    };
    const { summary } = await exportText(factory);
    expect(opened).toBe(2);
    expect(summary).toMatchObject({ count: 3, headerCount: 3 });
    const oneShot = (async function* () {
      yield* items();
    })();
    expect(() => exportRows(oneShot, {}, INFO)).toThrow(MemoryError);
  });

  it('streams a large export in several chunks with progress', async () => {
    const many = Array.from({ length: 3000 }, (_, i): ExportItem => ({
      memory: { ...(memories[0] as Memory), id: `id-${i}`, text: `memory number ${i} ${'x'.repeat(i % 97)}`, createdAt: 1700000000 + i },
      vector: vectors[i % vectors.length] ?? null,
    }));
    const progress: number[] = [];
    const stream = exportRows(many, {}, { ...INFO, count: many.length }, { onProgress: (p) => progress.push(p.rowsWritten) });
    const reader = stream.getReader();
    let chunks = 0;
    const parts: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks += 1;
      parts.push(value);
    }
    expect(chunks).toBeGreaterThan(1);
    expect(progress.length).toBeGreaterThan(1);
    let count = 0;
    for await (const line of gunzipLines(parts)) if (line.lineNo > 1) count += 1;
    expect(count).toBe(3000);
  });

  it('fails the stream on a vector of the wrong dimension', async () => {
    const bad = [{ memory: memories[0] as Memory, vector: new Float32Array(3) }];
    await expect(collectBytes(exportRows(bad, {}, { ...INFO, count: 1 }))).rejects.toMatchObject({ code: 'DIMENSION_MISMATCH' });
  });

  it('rejects bad filter arguments', () => {
    expect(() => exportRows(items, { types: 'semantic' as unknown as string[] }, INFO)).toThrow(MemoryError);
    expect(() => exportRows(items, { since: Number.NaN }, INFO)).toThrow(MemoryError);
  });
});
