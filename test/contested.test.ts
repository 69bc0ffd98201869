/**
 * Issue #27: a contested answer says so. A hit whose memory another memory says the opposite of,
 * unsettled (a `contradicts` link from "Keep both", or a pair waiting in review), carries
 * `contestedBy` — in process, through the worker boundary and in the agent tools' results.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { memoryTools } from '../src/agents/tools.ts';
import { hostedClient } from './helpers/hosted.ts';
import { openTestStore } from './helpers/store.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('contested hits', () => {
  it('"Keep both" on a contradiction marks both; a review pair too; a decision settles it', async () => {
    const store = await openTestStore();
    cleanups.push(() => store.close());
    const fridays = await store.remember('We deploy on Fridays', { onConflict: 'review' });
    const never = await store.remember('We never deploy on Fridays', { onConflict: 'review' });
    expect(never.action).toBe('queued');
    const other = await store.remember('The standup is at 9:30');
    // Waiting in review: each contests the other.
    let hits = await store.recall('do we deploy on Fridays?', { k: 3, touch: false });
    const by = (id: string) => hits.find((h) => h.memory.id === id)!.contestedBy;
    expect(by(fridays.memory.id)).toEqual([never.memory.id]);
    expect(by(never.memory.id)).toEqual([fridays.memory.id]);
    expect(hits.find((h) => h.memory.id === other.memory.id)?.contestedBy ?? []).toEqual([]);
    // "Keep both": the pair is linked as contradicting, and stays contested.
    const [pending] = await store.listPendingConflicts();
    await store.resolveConflict(pending!.id, 'keep_both');
    hits = await store.recall('do we deploy on Fridays?', { k: 3, touch: false });
    expect(by(fridays.memory.id)).toEqual([never.memory.id]);
    expect(by(never.memory.id)).toEqual([fridays.memory.id]);
    // The person decides: the newer replaces the older, nothing is contested any more.
    await store.supersede(fridays.memory.id, never.memory.id);
    hits = await store.recall('do we deploy on Fridays?', { k: 3, touch: false });
    expect(hits.find((h) => h.memory.id === never.memory.id)!.contestedBy).toEqual([]);
    // A duplicate waiting in review is not "another memory says otherwise".
    await store.remember('The standup is at 9:30.', { onConflict: 'review' });
    hits = await store.recall('standup time', { k: 3, touch: false });
    for (const h of hits) expect(h.contestedBy).toEqual([]);
  });

  it('through the worker boundary and in the recall tool', async () => {
    const client = await hostedClient('contested', cleanups);
    // A contradiction, not an update (a changed value is an update: outdated.test.ts).
    const a = await client.remember('We deploy on Fridays', { onConflict: 'review' });
    const b = await client.remember('We never deploy on Fridays', { onConflict: 'review' });
    const hits = await client.recall('do we deploy on Fridays?', { k: 2, touch: false });
    expect(hits.find((h) => h.memory.id === a.memory.id)!.contestedBy).toEqual([b.memory.id]);
    const tools = memoryTools(client);
    const result = await tools.call('recall', { query: 'do we deploy on Fridays?', k: 2 });
    const records = JSON.parse(result.content[0]!.text) as { id: string; contested_by: string[] }[];
    expect(records.find((r) => r.id === b.memory.id)!.contested_by).toEqual([a.memory.id]);
  });
});
