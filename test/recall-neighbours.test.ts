/**
 * Recall's conversation neighbours (core/ops/recall-neighbours.ts): the turns stored beside the
 * best candidates count and join only when they are turns of the candidate's conversation; a row
 * that merely sits beside a candidate (a note stored next to it) neither joins nor has its vector
 * read, and a candidate that is no turn has nothing around it read — the reads a store of notes
 * would otherwise pay on every recall.
 */
import { describe, expect, it } from 'vitest';
import { attachNeighbours, type Candidate } from '../src/core/ops/recall-neighbours.ts';
import type { Memory } from '../src/core/types.ts';

const T0 = 1_700_000_000;
const memory = (id: string, text: string, createdAt = T0): Memory => ({ id, text, createdAt, source: null }) as unknown as Memory;
const unit = (x: number): Float32Array => Float32Array.from([x, Math.sqrt(1 - x * x)]);

function fakeStorage(rows: Map<number, Memory>, vectors: Map<number, Float32Array>) {
  const asked: number[][] = [];
  const read: number[][] = [];
  return {
    asked,
    read,
    storage: {
      getByLabels: async (labels: number[]) => {
        read.push([...labels].sort((a, b) => a - b));
        return new Map(labels.filter((l) => rows.has(l)).map((l) => [l, rows.get(l)!] as const));
      },
      vectorsOf: async (labels: number[]) => {
        asked.push([...labels].sort((a, b) => a - b));
        return new Map(labels.filter((l) => vectors.has(l)).map((l) => [l, vectors.get(l)!] as const));
      },
    },
  };
}

describe('conversation neighbours', () => {
  it('a turn beside a candidate counts and joins; a note beside a candidate is neither read nor joined', async () => {
    // Labels 10–12: a conversation (two turns around the candidate turn 11). Labels 20–22: notes around a note.
    const rows = new Map<number, Memory>([
      [10, memory('t10', 'Caroline said, "I went to the support group."', T0)],
      [12, memory('t12', 'Melanie said, "Yes! It was amazing."', T0 + 60)],
      [20, memory('n20', 'The standup is at 9:30')],
      [22, memory('n22', 'Bugs are tracked in Linear')],
    ]);
    const vectors = new Map([10, 12, 20, 22].map((l) => [l, unit(0.5)] as const));
    const pool: Candidate[] = [
      { memory: memory('t11', 'Melanie said, "How was it?"', T0 + 30), cosine: 0.9, label: 11, filtered: false },
      { memory: memory('n21', 'We deploy on Fridays'), cosine: 0.8, label: 21, filtered: false },
    ];
    const { storage, asked, read } = fakeStorage(rows, vectors);
    await attachNeighbours(storage, pool, unit(1), () => true);
    // Only the turn's neighbours are read: the note (label 21) is no turn, so 20 and 22 are not.
    expect(read).toEqual([[10, 12]]);
    expect(asked).toEqual([[10, 12]]);
    expect(pool.map((c) => c.label).sort((a, b) => a - b)).toEqual([10, 11, 12, 21]);
    expect(pool.find((c) => c.label === 11)!.neighbourCosine).toBeCloseTo(0.5, 5);
    expect(pool.find((c) => c.label === 21)!.neighbourCosine).toBeUndefined();
  });

  it('a store of notes reads neither a row nor a vector around its candidates', async () => {
    const rows = new Map<number, Memory>([0, 2, 3, 5].map((l) => [l, memory(`n${l}`, `note ${l} about something`)] as const));
    const pool: Candidate[] = [1, 4].map((label) => ({ memory: memory(`n${label}`, `note ${label}`), cosine: 0.7, label, filtered: false }));
    const { storage, asked, read } = fakeStorage(rows, new Map());
    await attachNeighbours(storage, pool, unit(1), () => true);
    expect(read).toEqual([]);
    expect(asked).toEqual([]);
    expect(pool).toHaveLength(2);
  });

  it('a memory with a source is a turn of that source: its neighbours are read', async () => {
    const rows = new Map<number, Memory>([[8, { ...memory('s8', 'the deploy failed at step 3', T0 - 60), source: 'ci-log' }]]);
    const pool: Candidate[] = [{ memory: { ...memory('s9', 'retrying the deploy', T0), source: 'ci-log' }, cosine: 0.4, label: 9, filtered: false }];
    const { storage, read } = fakeStorage(rows, new Map([[8, unit(0.7)]]));
    await attachNeighbours(storage, pool, unit(1), () => true);
    expect(read).toEqual([[8, 10]]);
    expect(pool.map((c) => c.label).sort((a, b) => a - b)).toEqual([8, 9]);
    expect(pool.find((c) => c.label === 9)!.neighbourCosine).toBeCloseTo(0.7, 5);
  });

  it('a turn joins for a best candidate of its own conversation, not for the note beside it', async () => {
    // Label 11 is a turn of candidate 12's conversation (ranked 12th) and sits beside candidate 10 (a note, ranked 1st).
    const rows = new Map<number, Memory>([[11, memory('t11', 'Jon said, "We got the tickets."', T0 + 10)]]);
    const pool: Candidate[] = [
      { memory: memory('n10', 'The standup is at 9:30'), cosine: 0.95, label: 10, filtered: false },
      ...Array.from({ length: 10 }, (_, i) => ({ memory: memory(`f${i}`, `filler note ${i}`), cosine: 0.9 - i * 0.01, label: 1000 + 3 * i, filtered: false })),
      { memory: memory('t12', 'Gina said, "Did you get them?"', T0), cosine: 0.5, label: 12, filtered: false },
    ];
    const { storage, asked } = fakeStorage(rows, new Map([[11, unit(0.6)]]));
    await attachNeighbours(storage, pool, unit(1), () => true);
    expect(asked).toEqual([[11]]);
    expect(pool.map((c) => c.label)).not.toContain(11);
    expect(pool.find((c) => c.label === 12)!.neighbourCosine).toBeCloseTo(0.6, 5);
  });

  it('turns of another session (hours apart) do not join', async () => {
    const rows = new Map<number, Memory>([[4, memory('t4', 'Jon said, "See you next week."', T0 - 3 * 86_400)]]);
    const pool: Candidate[] = [{ memory: memory('t5', 'Gina said, "Hi Jon, long time!"', T0), cosine: 0.9, label: 5, filtered: false }];
    const { storage, asked } = fakeStorage(rows, new Map([[4, unit(0.2)]]));
    await attachNeighbours(storage, pool, unit(1), () => true);
    expect(asked).toEqual([]);
    expect(pool).toHaveLength(1);
    expect(pool[0]!.neighbourCosine).toBeUndefined();
  });
});
