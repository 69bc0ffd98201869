/**
 * Issue #51 item 5: score-adaptive packs. `recallPack` / `contextPack` with `cut: 'cliff'` offer
 * their budget the ranked memories before the first sharp drop of the scores (never separating
 * near-ties); `cut: 'none'` (the default, AI-Houkai's packer) offers all of them, as many as fit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { checkPackCut, cutAtCliff, PACK_CLIFF, PACK_MIN_ITEMS } from '../src/core/domain/pack-cut.ts';
import { openTestStore } from './helpers/store.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('the cut', () => {
  it('stops at the first drop of at least `cliff` of the spread, after minItems', () => {
    const scores = [0.9, 0.88, 0.87, 0.5, 0.49, 0.2];
    expect(cutAtCliff(scores, { cliff: 0.3, minItems: 1 })).toBe(3);
    expect(cutAtCliff(scores, { cliff: 0.3, minItems: 4 })).toBe(5);
    // Near-ties are never separated: no drop inside [0.9, 0.88, 0.87] reaches the cliff.
    expect(cutAtCliff(scores, { cliff: 0.05, minItems: 1 })).toBe(3);
    expect(cutAtCliff(scores, { cliff: 0.02, minItems: 1 })).toBe(1);
    // A flat list has no cliff: all of it is offered.
    expect(cutAtCliff([0.5, 0.5, 0.5, 0.5], { cliff: 0.1, minItems: 1 })).toBe(4);
    expect(cutAtCliff([0.9, 0.1], { cliff: 0.5, minItems: 2 })).toBe(2);
  });

  it('defaults to no cut, with the cross-validated cliff when asked; bad values are typed errors', () => {
    expect(checkPackCut({})).toEqual({ cut: 'none', cliff: PACK_CLIFF, minItems: PACK_MIN_ITEMS });
    expect(() => checkPackCut({ cut: 'knee' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { field: 'cut' } }));
    expect(() => checkPackCut({ cliff: 0 })).toThrow(expect.objectContaining({ details: { field: 'cliff' } }));
    expect(() => checkPackCut({ minItems: 0 })).toThrow(expect.objectContaining({ details: { field: 'minItems' } }));
  });
});

describe('packs cut at the cliff', () => {
  it('recallPack and contextPack keep what stands out, within the same budget', async () => {
    const store = await openTestStore();
    cleanups.push(() => store.close());
    await store.rememberMany([
      'The dentist appointment is on Tuesday at 10.',
      'The dentist said to floss every night.',
      'I bought a blue bicycle for the commute.',
      'The gym raised its monthly price to 40 pounds.',
      'Kwame said the trip to Accra was wonderful.',
      'My sister Ama lives in Leeds.',
    ]);
    const whole = await store.recallPack('dentist appointment', { tokenBudget: 800, touch: false });
    const cut = await store.recallPack('dentist appointment', { tokenBudget: 800, touch: false, cut: 'cliff', cliff: 0.2, minItems: 1 });
    expect(whole.items).toHaveLength(6);
    expect(cut.items.length).toBeGreaterThanOrEqual(1);
    expect(cut.items.length).toBeLessThan(whole.items.length);
    expect(cut.items[0]!.memory.text).toContain('dentist');
    expect(cut.usedTokens).toBeLessThan(whole.usedTokens);
    const context = await store.contextPack('book the dentist appointment', { tokenBudget: 800, touch: false, cut: 'cliff', cliff: 0.2, minItems: 1 });
    expect(context.items.length).toBeLessThan(6);
    await expect(store.recallPack('dentist', { cut: 'sometimes' as 'cliff' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'cut' } });
  });
});
