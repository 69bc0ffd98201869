/**
 * The bench's synthetic 384-d embedder, shared by the bench worker (e2e/bench.worker.ts) and
 * the Node side of the browser benchmarks (which needs the same vectors for exact ground truth):
 *
 * - `m:<i>`   → the i-th vector of a seeded clustered corpus (100 unit centroids plus Gaussian
 *               noise, like test/helpers/prng.ts `makeClusteredVectors`), computed on demand
 *               from (seed, i) so the corpus never has to be held in memory;
 * - `q:<j>`   → a fresh sample from the same distribution (a query "near the data", not a
 *               stored point);
 * - `q:<j>@<n>` → a small perturbation of a stored vector `m:<i>` with i drawn from [0, n);
 * - anything else → a fresh sample seeded by a hash of the text.
 */
import { gaussian, mulberry32, perturb, randomUnitVector } from '../test/helpers/prng.ts';

export const SYNTHETIC_ID = 'synthetic-384';
export const DIM = 384;
const CLUSTERS = 100;
const CORPUS_SEED = 0x5eed_0384;
const QUERY_SEED = 0x0a11_ce55;
/** Per-coordinate noise in units of 1/sqrt(dim), as in makeClusteredVectors (0.6 ≈ related texts). */
const SPREAD = 0.6;
const SIGMA = SPREAD / Math.sqrt(DIM);

const centroids: Float32Array[] = (() => {
  const normal = gaussian(mulberry32(CORPUS_SEED));
  return Array.from({ length: CLUSTERS }, () => randomUnitVector(DIM, normal));
})();

/** A 32-bit mix of two integers (murmur3 finaliser), to seed one point's generator. */
function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** One point of the distribution: a seeded centroid plus seeded noise, normalised. */
function sample(seed: number, sigma = SIGMA): Float32Array {
  const random = mulberry32(seed);
  const centroid = centroids[Math.floor(random() * CLUSTERS)]!;
  return perturb(centroid, sigma, gaussian(random));
}

/** The i-th stored vector of the corpus. */
export function corpusVector(i: number): Float32Array {
  return sample(mix(CORPUS_SEED, i));
}

export function syntheticVector(text: string): Float32Array {
  const stored = /^m:(\d+)$/.exec(text);
  if (stored) return corpusVector(Number(stored[1]));
  const near = /^q:(\d+)@(\d+)$/.exec(text);
  if (near) {
    const random = mulberry32(mix(QUERY_SEED, Number(near[1])));
    const n = Math.max(1, Number(near[2]));
    const base = corpusVector(Math.floor(random() * n));
    return perturb(base, SIGMA * 0.5, gaussian(random));
  }
  const query = /^q:(\d+)$/.exec(text);
  if (query) return sample(mix(QUERY_SEED, Number(query[1])));
  return sample(mix(QUERY_SEED ^ 0xffff, fnv1a(text)));
}

