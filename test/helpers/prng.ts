/**
 * Seeded randomness for tests and benchmarks, so corpora (and therefore recall numbers) are
 * reproducible run to run. Not for anything security related.
 */

/** mulberry32: a tiny, fast 32-bit PRNG; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal samples (Box–Muller) drawn from `random`. */
export function gaussian(random: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    let u = 0;
    while (u === 0) u = random();
    const v = random();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

/** A unit vector drawn uniformly from the sphere. */
export function randomUnitVector(dim: number, normal: () => number): Float32Array {
  const v = new Float32Array(dim);
  let norm = 0;
  for (let j = 0; j < dim; j++) {
    const x = normal();
    v[j] = x;
    norm += x * x;
  }
  norm = Math.sqrt(norm) || 1;
  for (let j = 0; j < dim; j++) v[j]! /= norm;
  return v;
}

export interface ClusteredOptions {
  /**
   * Per-coordinate noise around a centroid, in units of 1/sqrt(dim) (so `1` puts a point about
   * as far from its centroid as two random directions are apart; smaller is tighter). 0.6 gives
   * neighbour similarities of ~0.7–0.8, like sentence embeddings of related texts.
   */
  spread?: number;
}

/**
 * Vectors with the structure of real embeddings: `clusters` random unit centroids, each point a
 * centroid plus Gaussian noise, then normalised. Uniform noise alone makes every neighbour
 * nearly equidistant, which flatters nothing and tests little.
 */
export function makeClusteredVectors(
  n: number,
  dim: number,
  seed: number,
  clusters = 100,
  options: ClusteredOptions = {},
): Float32Array[] {
  const random = mulberry32(seed);
  const normal = gaussian(random);
  const centroids = Array.from({ length: clusters }, () => randomUnitVector(dim, normal));
  const sigma = (options.spread ?? 0.6) / Math.sqrt(dim);
  const out: Float32Array[] = [];
  for (let i = 0; i < n; i++) {
    const c = centroids[Math.floor(random() * clusters)]!;
    out.push(perturb(c, sigma, normal));
  }
  return out;
}

/** A normalised copy of `base` plus N(0, sigma²) noise per coordinate: a query "near the data". */
export function perturb(base: Float32Array, sigma: number, normal: () => number): Float32Array {
  const v = new Float32Array(base.length);
  let norm = 0;
  for (let j = 0; j < base.length; j++) {
    const x = base[j]! + sigma * normal();
    v[j] = x;
    norm += x * x;
  }
  norm = Math.sqrt(norm) || 1;
  for (let j = 0; j < base.length; j++) v[j]! /= norm;
  return v;
}
