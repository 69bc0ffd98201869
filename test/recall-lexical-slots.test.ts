import { describe, expect, it } from 'vitest';
import { openDexieStorage } from '../src/adapters/storage-dexie.ts';
import type { LexicalPostings } from '../src/core/ports.ts';
import { openTestStore } from './helpers/store.ts';

/**
 * How many memories the default recall asks the corpus lexical index for: k · ⌈overfetch / 2⌉,
 * at least 20 (20 for k 10, not the 40 of the cosine pool). Halving it left LoCoMo dev and
 * SciFact within their noise (BENCHMARKS.md, issue #26, session 5) and the recall does less.
 */
describe('the corpus lexical union of the default recall', () => {
  it('asks for k · ⌈overfetch / 2⌉ memories, at least 20', async () => {
    const limits: number[] = [];
    const store = await openTestStore({
      storage: async (name: string) => {
        const port = await openDexieStorage(name);
        return new Proxy(port, {
          get(target, key, receiver) {
            const value = Reflect.get(target, key, receiver);
            if (key !== 'lexicalCandidates') return value;
            return (terms: string[], limit: number, options?: unknown) => (limits.push(limit), (value as LexicalPostings['lexicalCandidates']).call(target, terms, limit, options as never));
          },
        });
      },
    });
    await store.rememberMany(Array.from({ length: 50 }, (_, i) => `deploy note ${i}: the staging cluster runs build ${i}`));
    for (const options of [{ k: 10 }, { k: 3 }, { k: 30 }, { k: 10, overfetch: 7 }, { k: 10, overfetch: 1 }]) await store.recall('staging cluster build', { ...options, touch: false });
    expect(limits).toEqual([20, 20, 60, 40, 20]);
    await store.close();
  });
});
