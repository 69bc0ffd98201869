import type { Embedder, EmbedOptions } from '../../src/core/ports.ts';

/**
 * A deterministic bag-of-words embedder for tests that need no model: each token is hashed
 * into a few dimensions, so texts sharing words are close. Not a semantic model.
 */
export function createHashEmbedder(options: { dim?: number; id?: string } = {}): Embedder & { calls: number } {
  const dim = options.dim ?? 128;
  const embedder = {
    id: options.id ?? `hash-${dim}`,
    dim,
    calls: 0,
    async embed(texts: string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
      embedder.calls += 1;
      const out: Float32Array[] = [];
      for (const [i, text] of texts.entries()) {
        if (opts.signal?.aborted) throw new DOMException('aborted', 'AbortError');
        const v = new Float32Array(dim);
        for (const token of text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) {
          let h = 2166136261;
          for (let c = 0; c < token.length; c++) h = Math.imul(h ^ token.charCodeAt(c), 16777619);
          for (let j = 0; j < 3; j++) {
            h = Math.imul(h ^ (h >>> 13), 0x5bd1e995);
            v[(h >>> 0) % dim]! += j === 0 ? 1 : 0.5;
          }
        }
        let norm = 0;
        for (const x of v) norm += x * x;
        norm = Math.sqrt(norm) || 1;
        for (let j = 0; j < dim; j++) v[j]! /= norm;
        out.push(v);
        opts.onProgress?.({ kind: 'embed', done: i + 1, total: texts.length });
      }
      return out;
    },
  };
  return embedder;
}
