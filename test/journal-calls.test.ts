import { describe, expect, it } from 'vitest';
import { linkUndos, summarizeCall, type JournalCall } from '../src/core/services/journal-calls.ts';
import type { JournalEntry } from '../src/core/ports.ts';
import { planUndo } from '../src/core/domain/undo-plan.ts';
import type { Memory } from '../src/core/types.ts';
import type { LocalMemory } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { openTestStore } from './helpers/store.ts';

/** An archive of `n` memories, exported from a scratch store, as the File a person drops. */
async function archiveOf(n: number, name = 'backup.ahkai'): Promise<File> {
  const source = await openTestStore({ conflicts: { policy: 'ignore' } });
  await source.rememberMany(Array.from({ length: n }, (_, i) => ({ text: `archived fact number ${i} about topic ${i % 7}` })));
  const blob = await source.exportArchive();
  await source.close();
  return new File([blob], name);
}

const memory = (id: string, text: string, extra: Partial<Memory> = {}): Memory =>
  ({ id, text, type: 'semantic', tags: [], importance: 0.5, createdAt: 1, lastAccessed: 1, accessCount: 0, links: [], supersededBy: '', ...extra }) as Memory;

const entry = (seq: number, group: string, op: string, id: string, before: Memory | null, after: Memory | null, meta: Record<string, unknown> = {}): JournalEntry => ({
  seq,
  group,
  op,
  id,
  before,
  after,
  meta,
  ts: seq,
  actor: 'ui',
});

describe('the journal as calls', () => {
  it('lists an import as one call with its count and archive name, between the calls around it', async () => {
    const store = await openTestStore({ conflicts: { policy: 'ignore' } });
    await store.remember('before the import');
    // More entries than one key page of the walk (512): the older call is still found.
    const file = await archiveOf(600);
    const result = await store.importArchive(file);
    expect(result.imported).toBe(600);
    await store.remember('after the import');

    const calls = await store.journalCalls(10);
    expect(calls.map((c) => [c.op, c.memories])).toEqual([
      ['remember', 1],
      ['import', 600],
      ['remember', 1],
    ]);
    const imported = calls[1]!;
    expect(imported).toMatchObject({ entries: 600, meta: { archive: 'backup.ahkai' }, undoable: true, undoneBy: null });
    expect(calls[0]!.subject?.text).toBe('after the import');
    expect(calls[2]!.subject?.text).toBe('before the import');
    await store.close();
  });

  it('undoes an import in one step after a dry run that counts, and redoes it without the model', async () => {
    const embedder = createHashEmbedder();
    const store = await openTestStore({ embedder, conflicts: { policy: 'ignore' } });
    await store.remember('kept memory');
    await store.importArchive(await archiveOf(300));
    expect(await store.count()).toBe(301);
    const importCall = (await store.journalCalls(5)).find((c) => c.op === 'import')!;

    // The dry run says what the confirmation will say, and writes nothing.
    const preview = await store.undo(importCall.seq, { dryRun: true });
    expect(preview).toMatchObject({ ok: true, dryRun: true, op: 'import', effect: { removed: 300, restored: 0, reverted: 0 } });
    expect(await store.count()).toBe(301);

    const undone = await store.undo(importCall.seq);
    expect(undone).toMatchObject({ ok: true, op: 'import', effect: { removed: 300 } });
    expect(await store.count()).toBe(1);
    let calls = await store.journalCalls(5);
    expect(calls[0]).toMatchObject({ op: 'undo', memories: 300, undoes: { group: importCall.group, op: 'import' }, undoneBy: null });
    expect(calls.find((c) => c.group === importCall.group)!.undoneBy).toBe(calls[0]!.seq);

    // Redo: undo the undo. The vectors come back from the trash, so nothing is embedded.
    const embedCalls = embedder.calls;
    const redone = await store.undo(calls[0]!.seq);
    expect(redone).toMatchObject({ ok: true, op: 'undo', effect: { restored: 300 } });
    expect(embedder.calls).toBe(embedCalls);
    expect(await store.count()).toBe(301);
    expect(await store.trashList()).toEqual([]);
    const hit = (await store.recall('archived fact number 42 about topic 0', { k: 1, touch: false }))[0]!;
    expect(hit.memory.text).toBe('archived fact number 42 about topic 0');

    calls = await store.journalCalls(5);
    const [redo, undo, imp] = calls;
    expect(redo).toMatchObject({ op: 'undo', undoes: { op: 'undo' }, undoneBy: null });
    expect(undo!.undoneBy).toBe(redo!.seq);
    expect(imp).toMatchObject({ op: 'import', undoneBy: null });

    // The import stands again, so it can be undone again.
    expect((await store.undo(imp!.seq)).ok).toBe(true);
    expect(await store.count()).toBe(1);
    await store.close();
  });

  it('refuses an undo when a memory changed since, naming the memory by its text', async () => {
    const store = await openTestStore({ conflicts: { policy: 'ignore' } });
    await store.importArchive(await archiveOf(5));
    const [one] = await store.listRecent({ limit: 1 });
    await store.edit(one!.id, { importance: 0.9 });
    const importCall = (await store.journalCalls(5)).find((c) => c.op === 'import')!;
    const refused = await store.undo(importCall.seq);
    expect(refused).toMatchObject({ ok: false, changed: { id: one!.id, text: one!.text } });
    expect(refused.reason).toContain(`"${one!.text}"`);
    expect(await store.count()).toBe(5);
    await store.close();
  });

  it('the default undo skips calls already undone', async () => {
    const store = await openTestStore({ conflicts: { policy: 'ignore' } });
    const a = (await store.remember('first')).memory;
    const b = (await store.remember('second')).memory;
    expect((await store.undo()).ids).toEqual([b.id]);
    expect((await store.undo()).ids).toEqual([a.id]);
    await expect(store.undo()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await store.close();
  });

  it('rejects bad undo options', async () => {
    const store = await openTestStore();
    await store.remember('x');
    await expect(store.undo(undefined, { dryRun: 'yes' } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(store.undo(undefined, { force: true } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(store.journalCalls(0)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await store.close();
  });
});

describe('undo planning and call summaries (pure)', () => {
  it('plans removals, puts back, rewrites and field changes, and blocks on a later change', () => {
    const a0 = memory('a', 'alpha');
    const a1 = memory('a', 'alpha', { importance: 0.9 });
    const b1 = memory('b', 'beta');
    const c0 = memory('c', 'gamma');
    const d0 = memory('d', 'delta');
    const d1 = memory('d', 'delta edited');
    const group = [entry(1, 'g', 'x', 'a', a0, a1), entry(2, 'g', 'x', 'b', null, b1), entry(3, 'g', 'x', 'c', c0, null), entry(4, 'g', 'x', 'd', d0, d1)];
    const current = new Map([['a', { ...a1, accessCount: 5 }], ['b', b1], ['d', d1]]);
    const plan = planUndo(group, current);
    expect(plan).toMatchObject({ ok: true, remove: ['b'], insert: [c0], rewrite: [{ now: d1, before: d0 }] });
    expect(plan.ok && plan.put).toEqual([{ ...a0, accessCount: 5 }]);
    expect(planUndo(group, new Map([...current, ['b', { ...b1, importance: 0.1 }]]))).toMatchObject({ ok: false, id: 'b' });
  });

  it('links undos to the calls they revert; a redo puts the call back in force', () => {
    const call = (seq: number, group: string, undoes?: string): JournalCall =>
      summarizeCall([entry(seq, group, undoes ? 'undo' : 'remember', 'm', null, memory('m', 't'), undoes ? { of: 1, ofGroup: undoes, ofOp: 'x' } : {})], [seq]);
    // newest first: redo (of the undo), undo (of c), c
    const calls = linkUndos([call(3, 'r', 'u'), call(2, 'u', 'c'), call(1, 'c')]);
    expect(calls.map((c) => c.undoneBy)).toEqual([null, 3, null]);
    const again = linkUndos([call(4, 'u2', 'c'), call(3, 'r', 'u'), call(2, 'u', 'c'), call(1, 'c')]);
    expect(again.map((c) => c.undoneBy)).toEqual([null, null, 3, 4]);
  });

  it('names a call by its op: merges and resolutions journal their removals as forget', () => {
    const m = memory('m', 'text');
    expect(summarizeCall([entry(1, 'g', 'merge', 'a', m, m), entry(2, 'g', 'forget', 'b', m, null)], [1, 2]).op).toBe('merge');
    expect(summarizeCall([entry(1, 'g', 'forget', 'b', m, null, { conflict: 'c1', resolution: 'drop_new' })], [1]).op).toBe('resolve');
    expect(summarizeCall([entry(1, 'g', 'export', '*', null, null)], [1])).toMatchObject({ op: 'export', undoable: false, subject: null });
  });
});

// Keep the type import used when the file is type-checked on its own.
export type { LocalMemory };
