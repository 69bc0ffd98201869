/**
 * Issue #50 item 7: a judge for what patterns cannot tell. The host's function (an LLM in real
 * use; scripted here) labels the pairs the patterns leave undecided, within a band and a budget a
 * call; its verdicts enter the same conflict flow (reported, outdated, queued); a judge that
 * fails or is slow changes nothing; it works in process and through the worker (proxied).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMemory } from '../src/local.ts';
import type { ConflictJudge, JudgePair } from '../src/core/domain/judge.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { hostedClient } from './helpers/hosted.ts';
import { openTestStore, uniqueName } from './helpers/store.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const OLD = 'Rosa works nights at the care home.';
const NEW = 'Rosa started a job at the hospital.';

/** A judge that knows one pair and records what it was asked. */
function scripted(label: 'update' | 'contradiction' | 'duplicate' | 'unrelated' = 'update'): ConflictJudge & { asked: JudgePair[] } {
  const asked: JudgePair[] = [];
  const judge = async (pair: JudgePair) => {
    asked.push(pair);
    return pair.older.text === OLD && pair.newer.text === NEW ? { label, reason: 'Rosa changed jobs' } : { label: 'unrelated' as const };
  };
  return Object.assign(judge, { asked });
}

describe('the judge', () => {
  it('labels an undecided pair; its update enters the conflict flow and recall ranks the newer first', async () => {
    const judge = scripted();
    const store = await openTestStore({ conflicts: { judge, judgeBand: [-1, 1] } });
    cleanups.push(() => store.close());
    const old = await store.remember(OLD, { createdAt: 1_700_000_000 });
    const fresh = await store.remember(NEW, { createdAt: 1_700_100_000 });
    expect(judge.asked.map((p) => [p.older.id, p.newer.id])).toEqual([[old.memory.id, fresh.memory.id]]);
    expect(fresh.conflicts).toEqual([expect.objectContaining({ kind: 'update', reason: 'judge', detail: 'Rosa changed jobs' })]);
    const hits = await store.recall('where does Rosa work?', { k: 2, touch: false });
    expect(hits.map((h) => [h.memory.id, h.outdatedBy])).toEqual([
      [fresh.memory.id, []],
      [old.memory.id, [fresh.memory.id]],
    ]);
  });

  it('is not asked about what the patterns decide, outside its band, or past its budget', async () => {
    const judge = scripted();
    const store = await openTestStore({ conflicts: { judge, judgeBand: [-1, 1], judgeBudget: 2 } });
    cleanups.push(() => store.close());
    await store.remember('We deploy on Fridays');
    const negation = await store.remember('We never deploy on Fridays');
    expect(negation.conflicts.map((c) => c.reason)).toEqual(['negation_diff']);
    expect(judge.asked).toHaveLength(0);
    await store.rememberMany(['alpha note one', 'alpha note two', 'alpha note three']);
    judge.asked.length = 0;
    await store.remember('alpha note four');
    // Three undecided neighbours, a budget of two.
    expect(judge.asked).toHaveLength(2);
    // Out of band: never asked.
    const narrow = scripted();
    const other = await openTestStore({ conflicts: { judge: narrow, judgeBand: [0.999, 1] } });
    cleanups.push(() => other.close());
    await other.remember(OLD);
    await other.remember(NEW);
    expect(narrow.asked).toHaveLength(0);
  });

  it('"unrelated" clears a duplicate by similarity alone; a failing or slow judge changes nothing', async () => {
    const unrelated: ConflictJudge = () => ({ label: 'unrelated' });
    const store = await openTestStore({ conflicts: { judge: unrelated, judgeBand: [-1, 1] } });
    cleanups.push(() => store.close());
    await store.remember('The cat sleeps on the red sofa');
    expect((await store.remember('The cat sleeps on the red sofa!')).conflicts).toEqual([]);
    const plain = await openTestStore();
    cleanups.push(() => plain.close());
    await plain.remember('The cat sleeps on the red sofa');
    const expected = (await plain.remember('The cat sleeps on the red sofa!')).conflicts.map((c) => c.kind);
    expect(expected).toEqual(['duplicate']);
    for (const judge of [() => { throw new Error('model offline'); }, () => new Promise<never>(() => undefined), () => ({ label: 'maybe' })] as ConflictJudge[]) {
      const s = await openTestStore({ conflicts: { judge, judgeBand: [-1, 1], judgeTimeoutMs: 50 } });
      cleanups.push(() => s.close());
      await s.remember('The cat sleeps on the red sofa');
      expect((await s.remember('The cat sleeps on the red sofa!')).conflicts.map((c) => c.kind)).toEqual(expected);
    }
  });

  it('refuses bad settings with a typed error', async () => {
    await expect(createMemory({ name: uniqueName('judge-bad'), embedder: createHashEmbedder(), conflicts: { judge: 'gpt' as never } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'conflicts.judge' } });
    await expect(createMemory({ name: uniqueName('judge-bad'), embedder: createHashEmbedder(), conflicts: { judge: scripted(), judgeBand: [0.9, 0.1] } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'conflicts.judgeBand' } });
    const store = await openTestStore();
    cleanups.push(() => store.close());
    await expect(store.remember('x', { judge: 42 as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'judge' } });
  });

  it("a call's own judge, through the worker boundary (proxied), queues its verdict for review", async () => {
    const client = await hostedClient('judge-worker', cleanups);
    const judge = scripted('contradiction');
    await client.remember(OLD, { createdAt: 1_700_000_000, onConflict: 'review' });
    const fresh = await client.remember(NEW, { createdAt: 1_700_100_000, onConflict: 'review', judge });
    expect(judge.asked).toHaveLength(1);
    expect(fresh.action).toBe('queued');
    expect((await client.listPendingConflicts()).map((c) => [c.kind, c.reason])).toEqual([['contradiction', 'judge']]);
    // No judge on this call, none on the store: nothing asked, nothing found.
    const again = await client.remember('Rosa also volunteers at the library.', { onConflict: 'review' });
    expect(judge.asked).toHaveLength(1);
    expect(again.action).not.toBe('queued');
  });
});
