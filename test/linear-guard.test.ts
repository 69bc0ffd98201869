import { afterEach, describe, expect, it, vi } from 'vitest';
import { HARD_LIMIT, LINEAR_BUDGET_MS, withinBudget, withinBudgetAsync } from './helpers/linear.ts';

/** A virtual clock: each `run(n)` takes `cost(n)` ms of it, whatever the machine is doing. */
function virtualTime(cost: (n: number) => number): (n: number) => void {
  let now = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => now);
  return (n) => {
    now += cost(n);
  };
}

describe('the super-linear guard (test/helpers/linear.ts)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('lets linear work through even when a busy machine slows it past the budget', async () => {
    // 1,000,000 at 3.2 µs each: 3.2 s, three times the budget, and twice the size before.
    withinBudget('slowed linear', 1_000_000, virtualTime((n) => n * 0.0032));
    await withinBudgetAsync('slowed linear', 1_000_000, async (n) => virtualTime((m) => m * 0.0032)(n));
  });

  it('fails quadratic work at the first size past the budget', () => {
    const sizes: number[] = [];
    const tick = virtualTime((n) => (n * n) / 1e6);
    expect(() => withinBudget('quadratic', 1_000_000, (n) => (sizes.push(n), tick(n)))).toThrow(/quadratic: 32768 characters took 1074 ms \(budget 1000 ms, 4\.0× the size before\): super-linear/);
    expect(sizes[sizes.length - 1]).toBe(32_768);
  });

  it('fails a first size past the budget, and any size past the hard limit', async () => {
    const slow = virtualTime(() => LINEAR_BUDGET_MS + 1);
    expect(() => withinBudget('slow start', 16, slow)).toThrow(/slow start: 16 characters/);
    const tick = virtualTime((n) => (n >= 1 << 20 ? LINEAR_BUDGET_MS * HARD_LIMIT + 1 : n * 0.0099));
    await expect(withinBudgetAsync('hanging', 1 << 20, async (n) => tick(n))).rejects.toThrow(/hanging: 1048576 characters/);
  });
});
