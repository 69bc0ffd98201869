/**
 * A guard against super-linear work that fails fast instead of hanging: `run(n)` is called for
 * n = 16, 32, 64, … up to `maxSize`, and the test fails at the first size whose call takes
 * longer than `budgetMs`. A linear implementation finishes the largest size in milliseconds, far
 * inside the (deliberately generous) budget; a quadratic one crosses it within a few doublings
 * (the ReDoS this guards against took 380 ms at 20 KiB and ~30 min at 1 MiB), so it fails in
 * seconds rather than blocking the test run. This is a correctness bound, not a benchmark.
 */
export const LINEAR_BUDGET_MS = 1000;

export function withinBudget(label: string, maxSize: number, run: (n: number) => void, budgetMs = LINEAR_BUDGET_MS): void {
  for (let n = Math.min(16, maxSize); ; n = Math.min(maxSize, n * 2)) {
    const start = performance.now();
    run(n);
    const elapsed = performance.now() - start;
    if (elapsed > budgetMs) {
      throw new Error(`${label}: ${n} characters took ${elapsed.toFixed(0)} ms (budget ${budgetMs} ms): super-linear work`);
    }
    if (n >= maxSize) return;
  }
}

/** As {@link withinBudget} for async work (a store call). */
export async function withinBudgetAsync(label: string, maxSize: number, run: (n: number) => Promise<void>, budgetMs = LINEAR_BUDGET_MS): Promise<void> {
  for (let n = Math.min(16, maxSize); ; n = Math.min(maxSize, n * 2)) {
    const start = performance.now();
    await run(n);
    const elapsed = performance.now() - start;
    if (elapsed > budgetMs) {
      throw new Error(`${label}: ${n} characters took ${elapsed.toFixed(0)} ms (budget ${budgetMs} ms): super-linear work`);
    }
    if (n >= maxSize) return;
  }
}

/** 1 MiB, the largest text a memory may hold. */
export const MIB = 1 << 20;
