/**
 * The benchmarks' vectors: `n` clustered 384-d vectors (one centroid per ~1,000) and 300
 * queries, half unseen points of the same distribution, half near-copies of stored vectors —
 * exactly `npm run bench`'s corpus. Generating a million takes a while, so each size is cached
 * once in bench/.cache/ (git-ignored) as raw float32.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gaussian, makeClusteredVectors, mulberry32, perturb } from '../test/helpers/prng.ts';

export const QUERIES = 300;
const cacheDir = fileURLToPath(new URL('./.cache/', import.meta.url));

export function makeCorpus(n: number, dim: number): { data: Float32Array[]; queries: Float32Array[] } {
  const all = makeClusteredVectors(n + QUERIES, dim, 42, Math.max(20, Math.round(n / 1000)));
  const data = all.slice(0, n);
  const random = mulberry32(99);
  const normal = gaussian(random);
  const queries = all.slice(n).map((fresh, j) => (j % 2 === 0 ? fresh : perturb(data[Math.floor(random() * n)]!, 0.02 / Math.sqrt(dim), normal)));
  return { data, queries };
}

/** The corpus of `n`, from the cache when it is there (written on first use). */
export async function loadCorpus(n: number, dim: number): Promise<{ data: Float32Array[]; queries: Float32Array[] }> {
  const file = join(cacheDir, `corpus-${n}-${dim}.f32`);
  const rows = n + QUERIES;
  if (existsSync(file)) {
    const bytes = readFileSync(file);
    if (bytes.byteLength === rows * dim * 4) {
      const all = new Float32Array(bytes.buffer, bytes.byteOffset, rows * dim);
      const view = (i: number): Float32Array => all.subarray(i * dim, (i + 1) * dim);
      return { data: Array.from({ length: n }, (_, i) => view(i)), queries: Array.from({ length: QUERIES }, (_, j) => view(n + j)) };
    }
  }
  const corpus = makeCorpus(n, dim);
  const all = new Float32Array(rows * dim);
  corpus.data.forEach((v, i) => all.set(v, i * dim));
  corpus.queries.forEach((v, j) => all.set(v, (n + j) * dim));
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(`${file}.tmp`, new Uint8Array(all.buffer));
  renameSync(`${file}.tmp`, file);
  return corpus;
}
