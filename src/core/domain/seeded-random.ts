/**
 * A small seeded generator (mulberry32): the same seed gives the same numbers on every platform.
 * The store's background sample is drawn with it, seeded by the store's label counter, so two
 * stores holding the same memories judge and order a recall the same way.
 */
import type { RandomSource } from '../ports.ts';

export function seededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  return {
    next() {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}
