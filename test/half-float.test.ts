import { describe, expect, it } from 'vitest';
import { fromHalf, halfBits, roundToHalf, toHalf } from '../src/core/domain/half-float.ts';
import { cosineInOrder } from '../src/core/domain/vector-math.ts';
import { gaussian, mulberry32 as seeded } from './helpers/prng.ts';

function unitVector(random: () => number, dim: number): Float32Array {
  const normal = gaussian(random);
  const v = new Float32Array(dim);
  let norm = 0;
  for (let i = 0; i < dim; i++) {
    v[i] = normal();
    norm += v[i]! * v[i]!;
  }
  for (let i = 0; i < dim; i++) v[i]! /= Math.sqrt(norm);
  return v;
}

describe('binary16 vectors', () => {
  it('encodes the values IEEE 754 names', () => {
    const cases: [number, number][] = [
      [0, 0x0000],
      [-0, 0x8000],
      [1, 0x3c00],
      [-2, 0xc000],
      [0.5, 0x3800],
      [65504, 0x7bff],
      [65520, 0x7c00], // rounds up past the largest half: Infinity
      [1e6, 0x7c00],
      [-Infinity, 0xfc00],
      [2 ** -14, 0x0400], // smallest normal
      [2 ** -24, 0x0001], // smallest subnormal
      [2 ** -26, 0x0000], // below half of it: zero
      [1 + 2 ** -11, 0x3c00], // a tie rounds to even (down)
      [1 + 3 * 2 ** -11, 0x3c02], // a tie rounds to even (up)
      [1 / 3, 0x3555],
    ];
    for (const [value, bits] of cases) expect([value, halfBits(value)]).toEqual([value, bits]);
    expect(halfBits(NaN) & 0x7c00).toBe(0x7c00);
    expect(Number.isNaN(fromHalf(new Uint16Array([halfBits(NaN)]))[0])).toBe(true);
  });

  it('decodes every half to the value IEEE 754 gives it', () => {
    const decoded = fromHalf(new Uint16Array(65536).map((_, i) => i));
    for (let h = 0; h < 65536; h++) {
      const sign = h & 0x8000 ? -1 : 1;
      const exponent = (h >>> 10) & 0x1f;
      const mantissa = h & 0x3ff;
      const value =
        exponent === 0x1f ? (mantissa ? NaN : sign * Infinity) : exponent === 0 ? sign * mantissa * 2 ** -24 : sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
      if (!Object.is(decoded[h], value)) expect([h, decoded[h]]).toEqual([h, value]);
    }
  });

  it('every half survives the round trip, and a float rounds to its nearest half', () => {
    const all = new Uint16Array(65536).map((_, i) => i);
    const decoded = fromHalf(all);
    const again = toHalf(decoded);
    for (let h = 0; h < 65536; h++) {
      const exponent = (h >>> 10) & 0x1f;
      if (exponent === 0x1f && h & 0x3ff) continue; // NaNs: any NaN will do
      expect(again[h]).toBe(h);
    }
    const random = seeded(7);
    for (let i = 0; i < 20_000; i++) {
      // A float32, as vectors hold (a double would be rounded twice: to float32, then to half).
      const x = Math.fround((random() - 0.5) * 2 ** (Math.floor(random() * 40) - 26));
      const bits = halfBits(x);
      const r = decoded[bits]!;
      // No neighbour of the chosen half is closer to x.
      for (const n of [bits - 1, bits + 1]) {
        if (n < 0 || n > 0xffff || (n & 0x7fff) >= 0x7c00 || (n ^ bits) & 0x8000) continue;
        expect(Math.abs(decoded[n]! - x)).toBeGreaterThanOrEqual(Math.abs(r - x));
      }
    }
  });

  it('keeps embeddings: cosines move by under 1e-4, and the order of neighbours is kept', () => {
    const random = seeded(42);
    const dim = 384;
    const corpus = Array.from({ length: 2_000 }, () => unitVector(random, dim));
    const stored = corpus.map(roundToHalf);
    let worst = 0;
    let kept = 0;
    let total = 0;
    for (let q = 0; q < 50; q++) {
      // Queries close to a stored vector, so the top 10 are near-ties worth separating.
      const base = corpus[Math.floor(random() * corpus.length)]!;
      const query = unitVector(random, dim).map((x, i) => base[i]! + 0.5 * x);
      const exact = corpus.map((v, i) => ({ i, s: cosineInOrder(query, v) })).sort((a, b) => b.s - a.s);
      const half = stored.map((v, i) => ({ i, s: cosineInOrder(query, v) })).sort((a, b) => b.s - a.s);
      for (let i = 0; i < corpus.length; i++) worst = Math.max(worst, Math.abs(cosineInOrder(query, corpus[i]!) - cosineInOrder(query, stored[i]!)));
      const truth = new Set(exact.slice(0, 10).map((h) => h.i));
      kept += half.slice(0, 10).filter((h) => truth.has(h.i)).length;
      total += 10;
    }
    expect(worst).toBeLessThan(1e-4);
    expect(kept / total).toBeGreaterThanOrEqual(0.99);
  });
});
