import { gzipSync } from 'fflate';

export const HEADER = { format: 'ai-houkai/export', version: 1, source: { embedding_dim: 0 } };

/** The header of a file whose vectors come from `embedder` (model and dimension). */
export const headerFor = (embedder: { id: string; dim: number }): object => ({
  format: 'ai-houkai/export',
  version: 1,
  source: { embedding_model: embedder.id, embedding_dim: embedder.dim },
  options: { include_vectors: true },
});

/** An archive's text: the header line, then one line per row (strings are written as they are). */
export function archiveText(rows: readonly unknown[], header: object = HEADER): string {
  return [JSON.stringify(header), ...rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r)))].join('\n') + '\n';
}

/** The archive gzipped (level 0 keeps the text verbatim in the file, for byte-flip tests). */
export function archiveBytes(rows: readonly unknown[], header: object = HEADER, level: 0 | 6 | 9 = 6): Uint8Array {
  return gzipSync(new TextEncoder().encode(archiveText(rows, header)), { level });
}

/** A row `{ id, text, meta }` with `meta` fields given in snake_case. */
export function row(id: string, text: string, meta: Record<string, unknown> = {}, vector?: readonly number[]): Record<string, unknown> {
  return { id, text, meta: { id, text, ...meta }, ...(vector ? { vector } : {}) };
}
