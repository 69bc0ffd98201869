import { describe, expect, it } from 'vitest';
import { cosine, cosineFrom, cosineInOrder, cosineInOrderFrom } from '../src/core/domain/vector-math.ts';
import { mulberry32 } from './helpers/prng.ts';

describe('vector math: a query compared with many vectors', () => {
  it('cosineFrom and cosineInOrderFrom equal cosine and cosineInOrder to the last bit, zero vectors included', () => {
    const random = mulberry32(11);
    const vector = (dim: number): Float32Array => Float32Array.from({ length: dim }, () => random() * 2 - 1);
    for (const dim of [1, 3, 384, 385]) {
      const query = vector(dim);
      const others = [...Array.from({ length: 20 }, () => vector(dim)), new Float32Array(dim)];
      const toQuery = cosineFrom(query);
      const inOrder = cosineInOrderFrom(query);
      for (const other of others) {
        expect(toQuery(other)).toBe(cosine(query, other));
        expect(inOrder(other)).toBe(cosineInOrder(query, other));
      }
      expect(cosineFrom(new Float32Array(dim))(query)).toBe(0);
      expect(cosineInOrderFrom(new Float32Array(dim))(query)).toBe(0);
    }
  });
});
