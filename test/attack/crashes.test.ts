/**
 * Crashes mid-write, enumerated: `rememberMany` and `importArchive` are run with the database
 * "dying" after k write requests, for every k from 0 to the number a whole run makes (the
 * transaction in flight aborts, and nothing the dead owner tries afterwards — a rollback
 * included — reaches the database). Then a new owner opens the store (the dead one's import
 * lease has lapsed) and the store must hold whole batches only: `rememberMany`'s first j
 * batches for some j, every memory with its vector and journal entry; an import all or nothing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/core/ports.ts';
import { createMemory, type LocalMemory, type Memory } from '../../src/local.ts';
import { pythonArchive } from '../fixtures/make-archives.ts';
import { createHashEmbedder } from '../helpers/fake-embedder.ts';
import { idbFaults } from '../helpers/faults.ts';
import { makeMemory } from '../helpers/memory.ts';
import { manualClock, uniqueName } from '../helpers/store.ts';

const faults = idbFaults();
const abandoned: LocalMemory[] = [];
const results: Record<string, { crashes: number; halfWritten: number }> = {};

afterAll(async () => {
  faults.restore();
  for (const s of abandoned) await s.close().catch(() => undefined);
  const rows = Object.entries(results).map(([k, r]) => `${k.padEnd(14)} ${String(r.crashes).padStart(4)} crashes ${r.halfWritten} half-written`);
  console.log(`crashes mid-write\n${rows.join('\n')}`);
});

const embedder: Embedder = createHashEmbedder();
const strip = ({ lastAccessed: _l, accessCount: _a, ...rest }: Memory) => rest;

async function state(s: LocalMemory) {
  const memories = (await s.listRecent({ limit: 10_000, includeSuperseded: true, includeExpired: true })).sort((a, b) => a.id.localeCompare(b.id));
  const journal = await s.journalTail(10_000);
  return { memories, size: (await s.stats()).index.size, journal };
}

type Kind = 'rememberMany' | 'importArchive';
const BATCH = 4;
const ITEMS = Array.from({ length: 12 }, (_, i) => `crash test fact number ${i}`);
const BASE = [makeMemory('base-0', 'the base row zero'), makeMemory('base-1', 'the base row one'), makeMemory('base-2', 'the base row two')];
const INCOMING = pythonArchive({ memories: [makeMemory('base-1', 'base row one as the archive has it'), ...Array.from({ length: 11 }, (_, i) => makeMemory(`in-${i}`, `incoming row ${i}`))] });

/** One run: dies after `dieAfter` writes (null: never). Returns the writes made and what broke. */
async function run(kind: Kind, dieAfter: number | null): Promise<{ writes: number; problems: string[] }> {
  const name = uniqueName('crash');
  const clock = manualClock();
  const options = { name, embedder, index: 'exact' as const, clock, importLease: { locks: null, heartbeatSeconds: 3600 } };
  const first = await createMemory(options);
  await first.importArchive(pythonArchive({ memories: BASE }));
  const before = await state(first);
  faults.reset();
  if (dieAfter !== null) faults.die(dieAfter);
  let failed = false;
  try {
    if (kind === 'rememberMany') await first.rememberMany(ITEMS, { batchSize: BATCH });
    else await first.importArchive(INCOMING, { onConflict: 'overwrite', batchSize: BATCH });
  } catch {
    failed = true;
  }
  const writes = faults.count();
  faults.heal();
  abandoned.push(first); // the dead owner: never closed, never heard from again
  clock.advance(120); // its import lease (if any) has lapsed
  const next = await createMemory(options);
  abandoned.push(next);
  const after = await state(next);
  const problems: string[] = [];
  if (after.size !== after.memories.length) problems.push(`index holds ${after.size} vectors for ${after.memories.length} memories`);
  const old = new Map(before.memories.map((m) => [m.id, JSON.stringify(strip(m))]));
  if (kind === 'rememberMany') {
    for (const m of before.memories) if (!after.memories.some((n) => n.id === m.id)) problems.push(`lost ${m.id}`);
    const added = after.memories.filter((m) => !old.has(m.id)).map((m) => m.text).sort();
    const batches = added.length / BATCH;
    const expected = ITEMS.slice(0, Math.floor(batches) * BATCH).sort();
    if (!Number.isInteger(batches) || JSON.stringify(added) !== JSON.stringify(expected)) problems.push(`half a batch: ${added.length} added`);
    const journaled = after.journal.filter((e) => e.op === 'remember' && !old.has(e.id)).length;
    if (journaled !== added.length) problems.push(`${journaled} journal entries for ${added.length} memories`);
    if (!failed && added.length !== ITEMS.length) problems.push('reported success without writing everything');
  } else {
    const now = new Map(after.memories.map((m) => [m.id, JSON.stringify(strip(m))]));
    const whole = after.memories.length === BASE.length + 11 && now.get('base-1')?.includes('as the archive has it');
    const untouched = now.size === old.size && [...old].every(([id, m]) => now.get(id) === m);
    if (!whole && !untouched) problems.push(`half an import: ${after.memories.length} memories`);
    if (!failed && !whole) problems.push('reported success without importing everything');
    if (failed && whole) problems.push('reported failure but kept the import');
    if (untouched && after.journal.length !== before.journal.length) problems.push('journal entries of a rolled-back import remain');
  }
  return { writes, problems };
}

describe.each(['rememberMany', 'importArchive'] as const)('crashes during %s', (kind) => {
  it('at every write request: whole batches or nothing, never half', async () => {
    const clean = await run(kind, null);
    expect(clean.problems).toEqual([]);
    const found: string[] = [];
    for (let k = 0; k < clean.writes; k++) {
      const { problems } = await run(kind, k);
      if (problems.length) found.push(`after ${k} writes: ${problems.join('; ')}`);
    }
    results[kind] = { crashes: clean.writes, halfWritten: found.length };
    expect(found).toEqual([]);
  });
});
