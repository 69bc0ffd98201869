/**
 * A guard against super-linear work that fails fast instead of hanging: `run(n)` is called for
 * n = 16, 32, 64, … up to `maxSize`, and the test fails at the first size whose call takes
 * longer than `budgetMs` while taking more than {@link DOUBLING_LIMIT}× the size before it (or
 * longer than {@link HARD_LIMIT}× the budget at all). A linear implementation finishes the
 * largest size in milliseconds, far inside the (deliberately generous) budget, and doubles in
 * about twice the time; a quadratic one crosses the budget within a few doublings, at four times
 * the time of the size before (the ReDoS this guards against took 380 ms at 20 KiB and ~30 min at
 * 1 MiB), so it fails in seconds rather than blocking the test run. The growth test keeps a
 * linear call slowed past the budget by a busy machine (a second job holding the cores) from
 * failing. This is a correctness bound, not a benchmark.
 */
export const LINEAR_BUDGET_MS = 1000;
/** A doubling of the size that more than triples the time is super-linear. */
export const DOUBLING_LIMIT = 3;
/** Past this many budgets a size fails whatever its growth. */
export const HARD_LIMIT = 10;

/** Throws when `elapsed` (at size `n`, `previous` at the size before, if any) says super-linear. */
function check(label: string, n: number, elapsed: number, previous: number | undefined, budgetMs: number): void {
  if (elapsed <= budgetMs) return;
  if (elapsed <= budgetMs * HARD_LIMIT && previous !== undefined && elapsed <= previous * DOUBLING_LIMIT) return;
  const growth = previous === undefined ? '' : `, ${(elapsed / Math.max(previous, 0.001)).toFixed(1)}× the size before`;
  throw new Error(`${label}: ${n} characters took ${elapsed.toFixed(0)} ms (budget ${budgetMs} ms${growth}): super-linear work`);
}

export function withinBudget(label: string, maxSize: number, run: (n: number) => void, budgetMs = LINEAR_BUDGET_MS): void {
  let previous: number | undefined;
  for (let n = Math.min(16, maxSize); ; n = Math.min(maxSize, n * 2)) {
    const start = performance.now();
    run(n);
    const elapsed = performance.now() - start;
    check(label, n, elapsed, previous, budgetMs);
    previous = elapsed;
    if (n >= maxSize) return;
  }
}

/** As {@link withinBudget} for async work (a store call). */
export async function withinBudgetAsync(label: string, maxSize: number, run: (n: number) => Promise<void>, budgetMs = LINEAR_BUDGET_MS): Promise<void> {
  let previous: number | undefined;
  for (let n = Math.min(16, maxSize); ; n = Math.min(maxSize, n * 2)) {
    const start = performance.now();
    await run(n);
    const elapsed = performance.now() - start;
    check(label, n, elapsed, previous, budgetMs);
    previous = elapsed;
    if (n >= maxSize) return;
  }
}

/** 1 MiB, the largest text a memory may hold. */
export const MIB = 1 << 20;
