/**
 * The vector arithmetic of the hot paths, in one place: the exact index, the pending scan of the
 * deferred index and recall's cosine all use this dot product.
 */

/**
 * The dot product of `a[aOffset … aOffset+dim)` and `b[0 … dim)`. Four partial sums break the
 * add dependency chain, so the JIT keeps them in registers and the loop runs several times
 * faster than the plain one on long vectors.
 */
export function dot(a: Float32Array, aOffset: number, b: Float32Array, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const tail = dim - (dim % 4);
  let j = 0;
  for (; j < tail; j += 4) {
    s0 += a[aOffset + j]! * b[j]!;
    s1 += a[aOffset + j + 1]! * b[j + 1]!;
    s2 += a[aOffset + j + 2]! * b[j + 2]!;
    s3 += a[aOffset + j + 3]! * b[j + 3]!;
  }
  for (; j < dim; j++) s0 += a[aOffset + j]! * b[j]!;
  return s0 + s1 + s2 + s3;
}

/** 1 / |v| (0 for a zero vector, which then scores 0 against anything). */
export function inverseNorm(v: Float32Array): number {
  const sum = dot(v, 0, v, v.length);
  return sum > 0 ? 1 / Math.sqrt(sum) : 0;
}

/** Cosine similarity of two vectors of one length (0 when either is zero). */
export function cosine(a: Float32Array, b: Float32Array): number {
  return cosineFrom(a)(b);
}

/** Cosine with `a` fixed, its norm computed once: for the many vectors one query is compared with. */
export function cosineFrom(a: Float32Array): (b: Float32Array) => number {
  const na = dot(a, 0, a, a.length);
  return (b) => {
    const nb = dot(b, 0, b, b.length);
    return na > 0 && nb > 0 ? dot(a, 0, b, a.length) / Math.sqrt(na * nb) : 0;
  };
}

/**
 * Cosine in one pass, summing in index order: off the hot paths (the relevance background's
 * samples, calibration, benchmarks, golden checks), where its figures were fitted and recorded
 * with exactly this order. 0 when either vector is zero.
 */
export function cosineInOrder(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return cosineInOrderFrom(a)(b);
}

/** `cosineInOrder` with `a` fixed, its norm summed once (each sum in index order, as before). */
export function cosineInOrderFrom(a: ArrayLike<number>): (b: ArrayLike<number>) => number {
  let na = 0;
  for (let i = 0; i < a.length; i++) na += a[i]! * a[i]!;
  return (b) => {
    let dot = 0;
    let nb = 0;
    for (let i = 0; i < a.length; i++) {
      dot += a[i]! * b[i]!;
      nb += b[i]! * b[i]!;
    }
    return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
  };
}

/** Writes `src / |src|` into `dst` at `offset` (zeros stay zeros) without touching `src`. */
export function normaliseInto(src: Float32Array, dst: Float32Array, offset: number): void {
  const dim = src.length;
  const inv = inverseNorm(src);
  for (let j = 0; j < dim; j++) dst[offset + j] = src[j]! * inv;
}
