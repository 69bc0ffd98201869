/**
 * IEEE 754 half precision (binary16) for stored vectors. A 384-d embedding kept as float16 takes
 * 768 bytes instead of 1,536; rounding a unit vector's components to 11 significant bits moves a
 * cosine by under 1e-4 (test/half-float.test.ts), below what separates two ranked memories but
 * for near-ties (recall@10 against float32 exact: 0.999 at 10k, BENCHMARKS.md). Pure: no I/O.
 */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The binary16 bits nearest to `x` (round to nearest, ties to even; overflow to ±Infinity, NaN kept). */
export function halfBits(x: number): number {
  f32[0] = x;
  const bits = u32[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  // Re-biased exponent (127 → 15).
  const e = exponent - 112;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    // Subnormal half (or zero): shift the mantissa, with its implicit bit, into 10 bits.
    if (e < -10) return sign;
    const m = mantissa | 0x800000;
    const shift = 14 - e;
    const half = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    const midpoint = 1 << (shift - 1);
    return sign | (half + (rest > midpoint || (rest === midpoint && (half & 1)) ? 1 : 0));
  }
  const half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  // A carry out of the mantissa moves into the exponent, which is the right answer (up to Infinity).
  return sign | (half + (rest > 0x1000 || (rest === 0x1000 && (half & 1)) ? 1 : 0));
}

/** A vector as binary16 codes. */
export function toHalf(vector: Float32Array): Uint16Array {
  const out = new Uint16Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = halfBits(vector[i]!);
  return out;
}

/**
 * binary16 codes back to float32 (exactly: every half is a float). A normal half is moved into
 * the float's bits, its exponent re-biased from 15 to 127; zeros, subnormals, infinities and NaNs
 * are computed. It replaced a 256 KiB lookup table whose loop took 174 µs of a recall decoding 20
 * vectors at 100,000 memories, about 23 ns a component: the table out of cache by then, as I read
 * it (BENCHMARKS.md, issue #26 session 10).
 */
export function fromHalf(codes: Uint16Array): Float32Array {
  const out = new Float32Array(codes.length);
  const bits = new Uint32Array(out.buffer, out.byteOffset, out.length);
  for (let i = 0; i < codes.length; i++) {
    const h = codes[i]!;
    const exponent = h & 0x7c00;
    if (exponent !== 0 && exponent !== 0x7c00) bits[i] = ((h & 0x8000) << 16) | (((h & 0x7fff) + ((127 - 15) << 10)) << 13);
    else out[i] = unusualHalf(h);
  }
  return out;
}

/** A half that is not a normal number: a zero or subnormal (exponent 0), an infinity or NaN (exponent 31). */
function unusualHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const mantissa = h & 0x3ff;
  if ((h & 0x7c00) === 0) return sign * mantissa * 2 ** -24;
  return mantissa ? NaN : sign * Infinity;
}

/** `vector` rounded to what storing it as binary16 keeps (what every storage backend hands back). */
export function roundToHalf(vector: Float32Array): Float32Array {
  return fromHalf(toHalf(vector));
}
