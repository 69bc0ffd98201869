/**
 * Issue #50 items 1–2: the current truth first. A memory that updates another (the same attribute,
 * a new value) is current under every policy that looks; the older is outdated by it: an `updates`
 * link, journaled and undoable, exported, and read by recall, which ranks the current one above it
 * and says `outdatedBy`. After a supersede, the question that found the old fact finds the new one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { liftCurrent, type LiftableHit } from '../src/core/domain/current.ts';
import { memoryTools } from '../src/agents/tools.ts';
import { createMemory } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { openTestStore, uniqueName } from './helpers/store.ts';
import type { LocalMemory } from '../src/local.ts';
import { ALICE, useCouchServer } from './helpers/couch-suite.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const JAN = Date.UTC(2026, 0, 10) / 1000;
const MAR = Date.UTC(2026, 2, 14) / 1000;
const OLD = 'My phone number is 0161 555 0142.';
const NEW = 'My phone number is 07700 900318.';
const QUESTION = 'what is my phone number?';

async function store(): Promise<LocalMemory> {
  const s = await openTestStore();
  cleanups.push(() => s.close());
  return s;
}

describe('liftCurrent (pure)', () => {
  it('ranks a successor above what it outdates, with the better badge, along a chain, bringing in the missing', () => {
    const hits: LiftableHit[] = [
      { memory: { id: 'a' }, score: 0.9, confidence: 'strong' as const, relevance: 0.9 },
      { memory: { id: 'b' }, score: 0.5, confidence: 'none' as const, relevance: 0.2 },
      { memory: { id: 'x' }, score: 0.7, confidence: 'weak' as const },
    ];
    // a → outdated by b → outdated by c (not a candidate).
    const successors = new Map([
      ['a', ['b']],
      ['b', ['c']],
    ]);
    const { hits: out, currentOf } = liftCurrent(hits, successors, (id): LiftableHit | undefined => (id === 'c' ? { memory: { id }, score: 0.1, confidence: 'none' } : undefined));
    expect(out.map((h) => h.memory.id)).toEqual(['c', 'b', 'a', 'x']);
    expect(out[0]!.confidence).toBe('strong');
    expect(out[1]!.relevance).toBe(0.9);
    expect(currentOf.get('c')).toEqual(['b']);
    expect(currentOf.get('b')).toEqual(['a']);
  });

  it('drops the hidden stand-ins, and leaves a list without successors as it was', () => {
    const hits = [
      { memory: { id: 'old' }, score: 0.8 },
      { memory: { id: 'new' }, score: 0.3 },
    ];
    const { hits: out } = liftCurrent(hits, new Map([['old', ['new']]]), () => undefined, new Set(['old']));
    expect(out.map((h) => [h.memory.id, h.score > 0.8])).toEqual([['new', true]]);
    const plain = [{ memory: { id: 'p' }, score: 0.2 }, { memory: { id: 'q' }, score: 0.4 }];
    expect(liftCurrent(plain, new Map(), () => undefined).hits.map((h) => h.memory.id)).toEqual(['q', 'p']);
  });
});

describe('the current truth first (store)', () => {
  it("under 'warn': the update is reported, the old fact is outdated by the new one, which ranks first", async () => {
    const s = await store();
    const old = await s.remember(OLD, { createdAt: JAN });
    // A recall first: what the store knows of its links (no `updates` yet) is cached, and must not go stale.
    expect((await s.recall(QUESTION, { touch: false })).map((h) => h.outdatedBy)).toEqual([[]]);
    const fresh = await s.remember(NEW, { createdAt: MAR });
    expect(fresh.action).toBe('stored');
    expect(fresh.conflicts.map((c) => c.kind)).toEqual(['update']);
    const hits = await s.recall(QUESTION, { k: 2, touch: false, explain: true });
    expect(hits.map((h) => h.memory.id)).toEqual([fresh.memory.id, old.memory.id]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(hits[0]!.outdatedBy).toEqual([]);
    expect(hits[1]!.outdatedBy).toEqual([fresh.memory.id]);
    // Not a disagreement: no contestedBy on either.
    expect(hits.map((h) => h.contestedBy)).toEqual([[], []]);
    expect(hits[1]!.explain!.outdated).toEqual({ by: [fresh.memory.id] });
    expect(hits[0]!.explain!.current?.of ?? []).toEqual(expect.any(Array));
    // 'hide' leaves the outdated out.
    const current = await s.recall(QUESTION, { k: 2, touch: false, outdated: 'hide' });
    expect(current.map((h) => h.memory.id)).toEqual([fresh.memory.id]);
    await expect(s.recall(QUESTION, { outdated: 'drop' as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('the later event is current, whatever the order of writing (a backfilled old fact is outdated at once)', async () => {
    const s = await store();
    const fresh = await s.remember(NEW, { createdAt: MAR });
    const old = await s.remember(OLD, { createdAt: JAN });
    expect(old.conflicts.map((c) => c.kind)).toEqual(['update']);
    const hits = await s.recall(QUESTION, { k: 2, touch: false });
    expect(hits.map((h) => [h.memory.id, h.outdatedBy])).toEqual([
      [fresh.memory.id, []],
      [old.memory.id, [fresh.memory.id]],
    ]);
  });

  it('is journaled and undoable, and travels in an archive', async () => {
    const s = await store();
    const old = await s.remember(OLD, { createdAt: JAN });
    const fresh = await s.remember(NEW, { createdAt: MAR });
    const [entry] = await s.journalTail(1);
    expect(entry).toMatchObject({ op: 'link', id: fresh.memory.id });
    const blob = await s.exportArchive();
    const copy = await createMemory({ name: uniqueName('outdated-copy'), embedder: createHashEmbedder(), index: 'exact' });
    cleanups.push(() => copy.close());
    await copy.importArchive(blob);
    expect((await copy.recall(QUESTION, { k: 2, touch: false })).map((h) => [h.memory.id, h.outdatedBy])).toEqual([
      [fresh.memory.id, []],
      [old.memory.id, [fresh.memory.id]],
    ]);
    await s.undo();
    const hits = await s.recall(QUESTION, { k: 2, touch: false });
    expect(hits.every((h) => h.outdatedBy.length === 0)).toBe(true);
  });

  it("under 'review': outdated at once and queued; keep both makes them contested; supersede keeps the answer", async () => {
    const s = await store();
    const old = await s.remember(OLD, { createdAt: JAN, onConflict: 'review' });
    const fresh = await s.remember(NEW, { createdAt: MAR, onConflict: 'review' });
    expect(fresh.action).toBe('queued');
    let hits = await s.recall(QUESTION, { k: 2, touch: false });
    expect(hits.map((h) => [h.memory.id, h.outdatedBy, h.contestedBy])).toEqual([
      [fresh.memory.id, [], []],
      [old.memory.id, [fresh.memory.id], []],
    ]);
    const [pending] = await s.listPendingConflicts();
    expect(pending!.kind).toBe('update');
    await s.resolveConflict(pending!.id, 'keep_both');
    hits = await s.recall(QUESTION, { k: 2, touch: false });
    const by = (id: string) => hits.find((h) => h.memory.id === id)!;
    expect(by(old.memory.id)).toMatchObject({ outdatedBy: [], contestedBy: [fresh.memory.id] });
    expect(by(fresh.memory.id)).toMatchObject({ outdatedBy: [], contestedBy: [old.memory.id] });
  });

  it('after a supersede, a question that found only the old wording finds the new memory first, with the old one’s badge', async () => {
    const s = await store();
    const old = await s.remember('The dentist appointment is on Tuesday at the Leeds clinic.', { createdAt: JAN });
    const fresh = await s.remember('Moved: now Thursday.', { createdAt: MAR });
    const question = 'when is the dentist appointment at the Leeds clinic?';
    const before = await s.recall(question, { k: 3, touch: false });
    const oldHit = before.find((h) => h.memory.id === old.memory.id)!;
    await s.supersede(old.memory.id, fresh.memory.id);
    const after = await s.recall(question, { k: 3, touch: false, explain: true });
    expect(after[0]!.memory.id).toBe(fresh.memory.id);
    expect(after[0]!.score).toBeGreaterThan(oldHit.score);
    expect(after[0]!.confidence).toBe(oldHit.confidence);
    expect(after[0]!.explain!.current).toEqual({ of: [old.memory.id] });
    // The lift is a part of its own: the parts still sum to the score.
    expect(after[0]!.explain!.signals.reduce((sum, sig) => sum + sig.weighted, 0)).toBeCloseTo(after[0]!.score, 9);
    expect(after[0]!.explain!.signals.some((sig) => sig.name === 'current')).toBe(true);
    expect(after.some((h) => h.memory.id === old.memory.id)).toBe(false);
    // Asked for, the superseded one comes back below its replacement, marked.
    const all = await s.recall(question, { k: 3, touch: false, includeSuperseded: true });
    expect(all.map((h) => h.memory.id).slice(0, 2)).toEqual([fresh.memory.id, old.memory.id]);
    expect(all[1]!.outdatedBy).toEqual([fresh.memory.id]);
  });

  it('a less trusted memory never outdates a more trusted one (a page cannot push the person’s own fact down)', async () => {
    const s = await store();
    const mine = await s.remember(OLD, { createdAt: JAN });
    const page = await s.remember(NEW, { createdAt: MAR, trust: 'untrusted' });
    expect(page.conflicts.map((c) => c.kind)).toEqual(['update']);
    let hits = await s.recall(QUESTION, { k: 2, touch: false });
    expect(hits.every((h) => h.outdatedBy.length === 0)).toBe(true);
    // Nor a link that came from elsewhere (an import, a sync): it is not read.
    await s.link(page.memory.id, mine.memory.id, 'updates');
    hits = await s.recall(QUESTION, { k: 2, touch: false });
    expect(hits.find((h) => h.memory.id === mine.memory.id)!.outdatedBy).toEqual([]);
    // The other way round holds: a trusted memory outdates an untrusted one.
    const s2 = await store();
    const rumour = await s2.remember(OLD, { createdAt: JAN, trust: 'untrusted' });
    const fact = await s2.remember(NEW, { createdAt: MAR });
    expect((await s2.recall(QUESTION, { k: 2, touch: false })).find((h) => h.memory.id === rumour.memory.id)!.outdatedBy).toEqual([fact.memory.id]);
  });

  it('a contradiction that is not an update keeps both, contested, none outdated', async () => {
    const s = await store();
    const a = await s.remember('We deploy on Fridays', { onConflict: 'review' });
    const b = await s.remember('We never deploy on Fridays', { onConflict: 'review' });
    expect(b.conflicts.map((c) => c.kind)).toEqual(['contradiction']);
    const hits = await s.recall('do we deploy on Fridays?', { k: 2, touch: false });
    expect(hits.find((h) => h.memory.id === a.memory.id)).toMatchObject({ outdatedBy: [], contestedBy: [b.memory.id] });
  });

  it('the recall tool says outdated_by and takes outdated: "hide"', async () => {
    const s = await store();
    const old = await s.remember(OLD, { createdAt: JAN });
    const fresh = await s.remember(NEW, { createdAt: MAR });
    const tools = memoryTools(s);
    const read = async (args: Record<string, unknown>) => JSON.parse((await tools.call('recall', { query: QUESTION, k: 2, ...args })).content[0]!.text) as { id: string; outdated_by: string[] }[];
    expect((await read({})).map((r) => [r.id, r.outdated_by])).toEqual([
      [fresh.memory.id, []],
      [old.memory.id, [fresh.memory.id]],
    ]);
    expect((await read({ outdated: 'hide' })).map((r) => r.id)).toEqual([fresh.memory.id]);
  });
});

describe('outdated, carried by sync', () => {
  const couch = useCouchServer('outdated');

  it('a second device sees the same current memory and the same outdated one', async () => {
    const url = await couch.database();
    const [a, b] = [await store(), await store()];
    const old = await a.remember(OLD, { createdAt: JAN });
    const fresh = await a.remember(NEW, { createdAt: MAR });
    await a.sync({ url, auth: ALICE });
    await b.sync({ url, auth: ALICE });
    expect((await b.recall(QUESTION, { k: 2, touch: false })).map((h) => [h.memory.id, h.outdatedBy])).toEqual([
      [fresh.memory.id, []],
      [old.memory.id, [fresh.memory.id]],
    ]);
  });
});
