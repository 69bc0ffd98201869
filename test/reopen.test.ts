import { describe, expect, it } from 'vitest';
import { dropHnswSnapshot } from '../src/adapters/index-hnsw.ts';
import { createMemory, type LocalMemory } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { corruptSnapshot } from './helpers/hnsw-snapshot.ts';
import { uniqueName } from './helpers/store.ts';

const QUERIES = ['deploy staging cluster', 'lint format code', 'database backups nightly', 'coffee preferences'];
const TOPICS = ['deploy', 'staging', 'cluster', 'lint', 'format', 'code', 'database', 'backups', 'nightly', 'coffee', 'tea', 'review'];

function corpus(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${TOPICS[i % TOPICS.length]} ${TOPICS[(i * 7) % TOPICS.length]} ${TOPICS[(i * 5 + 3) % TOPICS.length]} note ${i}`);
}

const open = (name: string, snapshotDelayMs = 50): Promise<LocalMemory> =>
  createMemory({ name, embedder: createHashEmbedder({ id: 'hash', dim: 96 }), index: 'hnsw', snapshotDelayMs });

/**
 * The top hits per query in a canonical order. The hash embedder gives many exact score ties,
 * which any index may return in any order, so hits are ordered by (score, id) and the tied
 * group at the cut-off is left out.
 */
async function answers(store: LocalMemory): Promise<string[][]> {
  const out: string[][] = [];
  for (const q of QUERIES) {
    const hits = (await store.recall(q, { k: 40, touch: false, mode: 'semantic' })).map((h) => ({ id: h.memory.id, score: Math.round(h.score * 1e5) }));
    const cut = hits[hits.length - 1]!.score;
    out.push(
      hits
        .filter((h) => h.score > cut)
        .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
        .map((h) => `${h.score}:${h.id}`),
    );
  }
  expect(out.every((hits) => hits.length >= 3)).toBe(true);
  return out;
}

describe('reopening a store', () => {
  it('answers the same from its snapshot, after replaying unsnapshotted writes, without a snapshot, and after corruption', async () => {
    const name = uniqueName('reopen');
    const first = await open(name);
    const stored = await first.rememberMany(corpus(600), { batchSize: 200 });
    await first.forget(stored[3]!.memory.id);
    await first.edit(stored[4]!.memory.id, { text: 'coffee coffee coffee' });
    const expected = await answers(first);
    await first.close(); // persists the snapshot
    expect((await first.stats().catch((e: { code: string }) => e.code))).toBe('CLOSED');

    const fromSnapshot = await open(name, 60_000);
    expect(fromSnapshot.opened).toBe('snapshot');
    expect(await answers(fromSnapshot)).toEqual(expected);
    expect((await fromSnapshot.stats()).index.size).toBe(599);

    // Writes after the last snapshot, then the tab dies before the debounce fires.
    const extra = await fromSnapshot.rememberMany(['coffee tea review fresh', 'lint lint lint fresh']);
    await fromSnapshot.forget(stored[10]!.memory.id);
    const expectedAfter = await answers(fromSnapshot);
    // No close(): simulate a killed tab by opening a second instance over the same database.
    const replayed = await open(name, 60_000);
    expect(replayed.opened).toBe('snapshot+replay');
    expect(await answers(replayed)).toEqual(expectedAfter);
    expect((await replayed.stats()).index.size).toBe(600);
    expect((await replayed.get(extra[0]!.memory.id))!.text).toBe('coffee tea review fresh');
    await replayed.close();
    await fromSnapshot.close();

    await dropHnswSnapshot(name);
    const rebuilt = await open(name);
    expect(rebuilt.opened).toBe('rebuilt');
    expect(await answers(rebuilt)).toEqual(expectedAfter);
    await rebuilt.close();

    await corruptSnapshot(name);
    const events: number[] = [];
    const recovered = await createMemory({
      name,
      embedder: createHashEmbedder({ id: 'hash', dim: 96 }),
      index: 'hnsw',
      onProgress: (e) => void (e.kind === 'index-rebuild' && events.push(e.done)),
    });
    expect(recovered.opened).toBe('rebuilt');
    expect(events[0]).toBe(0);
    expect(events[events.length - 1]).toBe(600);
    expect(await answers(recovered)).toEqual(expectedAfter);
    await recovered.close();
  });
});
