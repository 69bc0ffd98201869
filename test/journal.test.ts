import { describe, expect, it } from 'vitest';
import { createMemory, type LocalMemory } from '../src/local.ts';
import { pythonArchive, sampleMemories } from './fixtures/make-archives.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { manualClock, openTestStore } from './helpers/store.ts';

async function ops(store: LocalMemory): Promise<string[]> {
  return (await store.journalTail(1000)).reverse().map((e) => `${e.op}:${e.actor}`);
}

describe('the journal', () => {
  it('records every mutation with before/after and the actor, in order', async () => {
    const clock = manualClock(1000);
    const store = await openTestStore({ clock, actor: 'agent:test', conflicts: { policy: 'ignore' } });
    const a = (await store.remember('first memory')).memory;
    const b = (await store.remember('second memory')).memory;
    await store.edit(a.id, { importance: 0.9 });
    await store.link(a.id, b.id, 'refines');
    await store.unlink(a.id, b.id);
    await store.supersede(a.id, b.id);
    await store.restore(a.id);
    await store.forget(b.id);
    await store.exportArchive();
    expect(await ops(store)).toEqual([
      'remember:agent:test', 'remember:agent:test', 'edit:agent:test', 'link:agent:test', 'unlink:agent:test',
      'supersede:agent:test', 'supersede:agent:test', 'restore:agent:test', 'restore:agent:test', 'forget:agent:test', 'export:agent:test',
    ]);
    const edit = (await store.history(a.id)).find((e) => e.op === 'edit')!;
    expect(edit.before!.importance).toBe(0.5);
    expect(edit.after!.importance).toBe(0.9);
    const forget = (await store.history(b.id)).find((e) => e.op === 'forget')!;
    expect(forget).toMatchObject({ before: { id: b.id }, after: null });
    await store.close();
  });

  it('a write that fails leaves neither the memory nor its journal entry', async () => {
    const store = await openTestStore();
    await store.remember('kept');
    const proto = globalThis.IDBObjectStore.prototype as unknown as Record<'add', (...args: unknown[]) => unknown>;
    const original = proto.add;
    let calls = 0;
    // Fail the journal append (the last add of the transaction): the memory must roll back too.
    proto.add = function (this: IDBObjectStore, ...args: unknown[]) {
      if (this.name === 'journal' && calls++ === 0) throw new DOMException('quota', 'QuotaExceededError');
      return original.apply(this, args);
    };
    try {
      await expect(store.remember('lost')).rejects.toMatchObject({ code: 'STORAGE_QUOTA' });
    } finally {
      proto.add = original;
    }
    expect((await store.listRecent()).map((m) => m.text)).toEqual(['kept']);
    expect(await ops(store)).toEqual(['remember:lib']);
    await store.close();
  });

  it('undoes every kind of call, and refuses when the memory changed since', async () => {
    const store = await openTestStore({ conflicts: { policy: 'ignore' } });
    const a = (await store.remember('alpha memory')).memory;
    const b = (await store.remember('beta memory')).memory;

    await store.edit(a.id, { text: 'alpha memory edited', tags: ['x'] });
    expect((await store.undo()).ok).toBe(true);
    expect(await store.get(a.id)).toMatchObject({ text: 'alpha memory', tags: [] });
    expect((await store.recall('alpha memory', { k: 1, touch: false }))[0]!.memory.id).toBe(a.id);

    await store.link(a.id, b.id);
    await store.undo();
    expect((await store.get(a.id))!.links).toEqual([]);
    await store.link(a.id, b.id, 'refines');
    await store.unlink(a.id, b.id);
    await store.undo();
    expect((await store.get(a.id))!.links).toEqual([{ to: b.id, rel: 'refines' }]);

    await store.supersede(a.id, b.id);
    await store.undo();
    expect((await store.get(a.id))!.supersededBy).toBe('');

    await store.forget(b.id);
    await store.undo();
    expect((await store.get(b.id))!.text).toBe('beta memory');
    expect((await store.recall('beta memory', { k: 1, touch: false }))[0]!.memory.id).toBe(b.id);

    const c = (await store.remember('gamma memory')).memory;
    await store.undo();
    expect(await store.get(c.id)).toBeNull();

    // An edit is undone only while the memory still equals what that edit left.
    await store.edit(a.id, { importance: 0.1 });
    const first = (await store.journalTail(1))[0]!;
    await store.edit(a.id, { importance: 0.2 });
    const refused = await store.undo(first.seq);
    expect(refused.ok).toBe(false);
    expect((await store.get(a.id))!.importance).toBe(0.2);

    await store.importArchive(pythonArchive({ memories: sampleMemories() }));
    expect(await store.count()).toBe(6);
    expect((await store.undo()).op).toBe('import');
    expect(await store.count()).toBe(2);
    expect((await store.journalTail(1))[0]!.op).toBe('undo');
    await expect(store.undo(999_999)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await store.close();
  });

  it('stateAt replays the journal to any moment', async () => {
    const clock = manualClock(1000);
    const store = await createMemory({ name: `state-${Date.now()}`, embedder: createHashEmbedder(), index: 'exact', clock });
    const a = (await store.remember('one')).memory;
    clock.set(2000);
    const b = (await store.remember('two')).memory;
    clock.set(3000);
    await store.edit(a.id, { text: 'one, edited' });
    clock.set(4000);
    await store.forget(b.id);
    expect((await store.stateAt(1500)).map((m) => m.text)).toEqual(['one']);
    expect((await store.stateAt(2500)).map((m) => m.text)).toEqual(['one', 'two']);
    expect((await store.stateAt(3500)).map((m) => m.text)).toEqual(['one, edited', 'two']);
    expect((await store.stateAt(4500)).map((m) => m.text)).toEqual(['one, edited']);
    await store.close();
  });
});
