/**
 * The changed-value patterns are tried from a cosine gate in the embedder's own units (issue #51
 * item 1): MiniLM keeps the gate it was tuned with, bge-small — whose unrelated pairs sit near
 * 0.35 — gets one as far above its unrelated text, so two unrelated notes that both hold a number
 * are not taken for an update.
 */
import { describe, expect, it } from 'vitest';
import { REFERENCE_CALIBRATIONS } from '../src/core/domain/calibrations.ts';
import { PATTERN_GATE, patternGateFor } from '../src/core/domain/conflicts.ts';
import { createMemory } from '../src/local.ts';
import type { Embedder } from '../src/core/ports.ts';
import { uniqueName } from './helpers/store.ts';

describe('the pattern gate', () => {
  it('is 4 robust spreads above unrelated text, never below the MiniLM-tuned 0.3', () => {
    expect(patternGateFor(undefined)).toBe(PATTERN_GATE);
    expect(patternGateFor(REFERENCE_CALIBRATIONS['Xenova/all-MiniLM-L6-v2']!.background)).toBe(PATTERN_GATE);
    expect(patternGateFor(REFERENCE_CALIBRATIONS['Xenova/bge-small-en-v1.5']!.background)).toBeCloseTo(0.348 + 4 * 0.0685, 6);
  });

  it('keeps an unrelated pair with a number each out of the update scan, for an embedder whose unrelated text is alike', async () => {
    // Two fixed vectors at cosine 0.52 under bge-small's calibration (its id selects it).
    const a = new Float32Array(384);
    const b = new Float32Array(384);
    a[0] = 1;
    b[0] = 0.52;
    b[1] = Math.sqrt(1 - 0.52 ** 2);
    const texts = new Map([
      ['Team office moved to Leopoldstraße 8, München.', a],
      ['The weekly team standup is on Tuesdays at 9:30.', b],
    ]);
    const embedder: Embedder = { id: 'Xenova/bge-small-en-v1.5', dim: 384, embed: async (xs) => xs.map((x) => texts.get(x) ?? a) };
    const memory = await createMemory({ name: uniqueName('gate'), embedder, index: 'exact' });
    try {
      await memory.remember('Team office moved to Leopoldstraße 8, München.');
      expect((await memory.remember('The weekly team standup is on Tuesdays at 9:30.')).conflicts).toEqual([]);
    } finally {
      await memory.close();
    }
    // The same pair under an embedder without a calibration (the 0.3 gate) is an update.
    const plain = await createMemory({ name: uniqueName('gate-plain'), embedder: { ...embedder, id: 'test/plain' }, index: 'exact' });
    try {
      await plain.remember('Team office moved to Leopoldstraße 8, München.');
      expect((await plain.remember('The weekly team standup is on Tuesdays at 9:30.')).conflicts.map((c) => c.kind)).toEqual(['update']);
    } finally {
      await plain.close();
    }
  });
});
