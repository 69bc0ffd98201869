/**
 * Issue #51 item 4: a rerank stage the host can fill. The top candidates are re-scored by a
 * host function (in process, and through the worker boundary as a proxied function) or by a
 * cross-encoder loaded by transformers.js from the models folder (here the stand-in built by
 * test/fixtures/make-stand-in-cross-encoder.ts from MiniLM's tokenizer); the scores are fused
 * with the first stage's; a reranker that is slow, fails or answers nonsense leaves the first
 * stage, and the explanation says which ran. Off by default.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkRerankSettings, fuseRerank, resolveRerank, type Reranker } from '../src/core/domain/rerank.ts';
import { pairScore } from '../src/adapters/reranker-transformers.ts';
import { MemoryError } from '../src/core/errors.ts';
import { openOptions } from '../src/rpc/protocol.ts';
import { makeStandInCrossEncoder, STAND_IN_MODEL_ID } from './fixtures/make-stand-in-cross-encoder.ts';
import { hostedClient } from './helpers/hosted.ts';
import { openTestStore } from './helpers/store.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const NOTES = [
  'The dentist appointment is on Tuesday at 10.',
  'I bought a blue bicycle for the commute.',
  'The gym raised its monthly price to 40 pounds.',
  'Kwame said the trip to Accra was wonderful.',
  'My sister Ama lives in Leeds.',
  'The car needs new tyres before winter.',
];

/** A host reranker that prefers texts holding `word`, and records what it was shown. */
function prefers(word: string): Reranker & { calls: { query: string; texts: string[] }[] } {
  const calls: { query: string; texts: string[] }[] = [];
  const fn = async (query: string, texts: string[]) => {
    calls.push({ query, texts });
    return texts.map((t) => (t.includes(word) ? 5 : -5));
  };
  return Object.assign(fn, { calls });
}

async function filled(options: Parameters<typeof openTestStore>[0] = {}) {
  const store = await openTestStore(options);
  cleanups.push(() => store.close());
  await store.rememberMany(NOTES.map((text) => ({ text })));
  return store;
}

describe('the fusion', () => {
  it('keeps the first stage at weight 0, follows the reranker at weight 1, and stays inside the first scores’ range', () => {
    const first = [0.9, 0.8, 0.7];
    const second = [0, 1, 5];
    expect(fuseRerank(first, second, 0).map((x) => x.toFixed(6))).toEqual(['0.900000', '0.800000', '0.700000']);
    const all = fuseRerank(first, second, 1);
    expect(all[2]).toBeCloseTo(0.9, 9);
    expect(Math.min(...all)).toBeCloseTo(0.7, 9);
    const half = fuseRerank(first, second, 0.5);
    expect(half.every((x) => x >= 0.7 - 1e-12 && x <= 0.9 + 1e-12)).toBe(true);
    // Equal first scores: the reranker only breaks the tie.
    const tied = fuseRerank([0.5, 0.5], [1, 2], 0.5);
    expect(tied[1]!).toBeGreaterThan(tied[0]!);
    expect(tied[1]! - 0.5).toBeLessThan(1e-6);
  });

  it('reads a one-logit cross-encoder as its logit, a two-label one as the last label’s log-odds', () => {
    expect(pairScore([2.5])).toBe(2.5);
    expect(pairScore([0, Math.log(3)])).toBeCloseTo(Math.log(3), 9);
    expect(pairScore([-1, 1])).toBeGreaterThan(pairScore([1, -1]));
  });

  it('refuses bad settings with a typed error naming the field', () => {
    const bad = (value: unknown): string | undefined => {
      try {
        checkRerankSettings(value);
      } catch (error) {
        expect(error).toBeInstanceOf(MemoryError);
        expect((error as MemoryError).code).toBe('INVALID_ARGUMENT');
        return (error as MemoryError).details['field'] as string;
      }
      return undefined;
    };
    expect(bad({})).toBe('rerank.model');
    expect(bad({ model: 'x', reranker: () => [] })).toBe('rerank.reranker');
    expect(bad({ reranker: 'no' })).toBe('rerank.reranker');
    expect(bad({ model: 'x', top: 51 })).toBe('rerank.top');
    expect(bad({ model: 'x', weight: 2 })).toBe('rerank.weight');
    expect(bad({ model: 'x', timeoutMs: 0 })).toBe('rerank.timeoutMs');
    expect(bad({ model: 'x', k: 3 })).toBe('rerank.k');
    expect(checkRerankSettings(undefined)).toBeNull();
    expect(checkRerankSettings({ model: 'm' })).toMatchObject({ source: { kind: 'cross-encoder', model: 'm' }, top: 20, weight: 0.5, timeoutMs: 2000 });
    expect(() => resolveRerank(null, true)).toThrow(/rerank: true needs a store/);
    expect(resolveRerank(checkRerankSettings({ model: 'm' }), false)).toBeNull();
    expect(resolveRerank(checkRerankSettings({ model: 'm' }), { top: 5 })).toMatchObject({ source: { model: 'm' }, top: 5 });
  });
});

describe('a host reranker', () => {
  it('is off by default; asked per call, it reorders the top and the explanation says so', async () => {
    const store = await filled();
    const query = 'when do I see the dentist?';
    const plain = await store.recall(query, { k: 3, explain: true, touch: false });
    expect(plain[0]!.explain!.rerank).toBeUndefined();
    const reranker = prefers('bicycle');
    const hits = await store.recall(query, { k: 3, explain: true, touch: false, rerank: { reranker, weight: 1 } });
    expect(hits[0]!.memory.text).toContain('bicycle');
    expect(hits[0]!.explain!.rerank).toMatchObject({ ran: 'host', weight: 1, score: 5 });
    expect(typeof hits[0]!.explain!.rerank!.firstStage).toBe('number');
    expect(hits[0]!.explain!.score).toBe(hits[0]!.score);
    // The parts still sum to the score: what the reranker moved it by is a part of its own.
    for (const h of hits) expect(h.explain!.signals.reduce((sum, p) => sum + p.weighted, 0)).toBeCloseTo(h.score, 9);
    expect(hits[0]!.explain!.signals.find((p) => p.name === 'rerank')!.reason).toBe('Re-scored by the host’s reranker (5.000)');
    // It saw the query and at most `top` candidates (the default pool here holds all six).
    expect(reranker.calls).toHaveLength(1);
    expect(reranker.calls[0]!.query).toBe(query);
    expect(reranker.calls[0]!.texts.length).toBeLessThanOrEqual(20);
    await store.recall(query, { k: 3, touch: false, rerank: { reranker, top: 2 } });
    expect(reranker.calls[1]!.texts).toHaveLength(2);
  });

  it('at the store: every call uses it, `false` turns it off for a call, `true` without one is refused', async () => {
    const reranker = prefers('tyres');
    const store = await filled({ rerank: { reranker, weight: 1 } });
    expect((await store.recall('when do I see the dentist?', { k: 2, touch: false }))[0]!.memory.text).toContain('tyres');
    expect((await store.recall('when do I see the dentist?', { k: 2, touch: false, rerank: false }))[0]!.memory.text).toContain('dentist');
    // The reranker orders within a confidence band: the badge and the rank still agree, so the
    // weak answer about Kwame stays above the reranker's favourite, which the first stage judged none.
    const texts = (await store.recall('what did Kwame say about the trip?', { k: 2, touch: false })).map((h) => [h.memory.text.split(' ')[0], h.confidence]);
    expect(texts).toEqual([['Kwame', 'weak'], ['The', 'none']]);
    expect((await store.recall('what did Kwame say about the trip?', { k: 2, touch: false, rerank: false }))[1]!.memory.text).toContain('bicycle');
    const bare = await filled();
    await expect(bare.recall('trip', { rerank: true })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'rerank' } });
    await expect(bare.recall('trip', { rerank: { top: 100, reranker } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'rerank.top' } });
  });

  it('a slow, failing or nonsense reranker leaves the first stage, and says why', async () => {
    const store = await filled();
    const query = 'when do I see the dentist?';
    const first = (await store.recall(query, { k: 3, touch: false })).map((h) => h.memory.id);
    const cases: [Reranker, string][] = [
      [() => new Promise<number[]>((resolve) => setTimeout(() => resolve([1]), 2_000)), 'timeout'],
      [() => {
        throw new Error('model offline');
      }, 'failed'],
      [async () => [1, 2], 'bad-answer'],
      [async (_q, texts) => texts.map(() => Number.NaN), 'bad-answer'],
    ];
    for (const [reranker, reason] of cases) {
      const hits = await store.recall(query, { k: 3, explain: true, touch: false, rerank: { reranker, timeoutMs: 50 } });
      expect(hits.map((h) => h.memory.id)).toEqual(first);
      expect(hits.every((h) => h.explain!.rerank!.ran === 'first-stage')).toBe(true);
      expect(hits[0]!.explain!.rerank).toMatchObject({ reason });
    }
  });

  it('through the worker boundary, as a proxied function', async () => {
    const client = await hostedClient('rerank-worker', cleanups);
    await client.rememberMany(NOTES.map((text) => ({ text })));
    const reranker = prefers('Leeds');
    const hits = await client.recall('when do I see the dentist?', { k: 2, explain: true, touch: false, rerank: { reranker, weight: 1 } });
    expect(reranker.calls).toHaveLength(1);
    expect(hits[0]!.memory.text).toContain('Leeds');
    expect(hits[0]!.explain!.rerank!.ran).toBe('host');
    // The store's own cross-encoder travels in the open request as plain data.
    expect(openOptions({ name: 'n', rerank: { model: STAND_IN_MODEL_ID, top: 10 } }).rerank).toEqual({ model: STAND_IN_MODEL_ID, top: 10 });
    // recallPack takes it too.
    const pack = await client.recallPack('when do I see the dentist?', { tokenBudget: 200, rerank: { reranker, weight: 1 } });
    expect(reranker.calls).toHaveLength(2);
    expect(pack.items[0]!.memory.text).toContain('Leeds');
  });
});

describe('a cross-encoder from the models folder', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await makeStandInCrossEncoder(await mkdtemp(path.join(tmpdir(), 'houkai-ce-')));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads at open through text-classification and reorders the top by the pair', async () => {
    const store = await filled({ rerank: { model: STAND_IN_MODEL_ID, weight: 1 }, transformers: { localModelPath: `${dir}/` } });
    // The stand-in scores the share of a memory's tokens the question holds: the sister in Leeds.
    const hits = await store.recall('my sister lives in Leeds', { k: 3, explain: true, touch: false });
    expect(hits[0]!.memory.text).toBe('My sister Ama lives in Leeds.');
    expect(hits[0]!.explain!.rerank).toMatchObject({ ran: 'cross-encoder', model: STAND_IN_MODEL_ID });
    expect(hits[0]!.explain!.rerank!.score).toBeGreaterThan(hits[1]!.explain!.rerank!.score ?? 0);
  });

  it('a model that is not there fails the open with MODEL_UNAVAILABLE; a call naming one fails that call', async () => {
    await expect(openTestStore({ rerank: { model: 'nobody/no-such-cross-encoder' }, transformers: { localModelPath: `${dir}/` } })).rejects.toMatchObject({
      code: 'MODEL_UNAVAILABLE',
      details: { model: 'nobody/no-such-cross-encoder' },
    });
    const store = await filled({ transformers: { localModelPath: `${dir}/` } });
    await expect(store.recall('trip', { rerank: { model: 'nobody/no-such-cross-encoder' } })).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE' });
    const hits = await store.recall('my sister lives in Leeds', { k: 2, touch: false, explain: true, rerank: { model: STAND_IN_MODEL_ID } });
    expect(hits[0]!.explain!.rerank!.ran).toBe('cross-encoder');
  });
});
