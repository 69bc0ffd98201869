// The real models in the browser worker, loaded as the memory worker loads them (from the app's
// own origin, onnxruntime-web's WASM with SIMD): the golden vectors of test/golden.test.ts hold
// in the module SharedWorker (not cross-origin isolated in Chromium: one thread) and in a
// dedicated Worker of the cross-origin-isolated page (multi-threaded).
import { expect, test } from 'playwright/test';
import { GOLDEN_TEXTS, goldenCosines, goldenVectors } from '../test/helpers/golden.ts';

const { sentences, queries } = GOLDEN_TEXTS;
const cosines = goldenCosines;

const MODELS: readonly { key: string; id: string; floor: number; mean: number; where: readonly ('shared' | 'dedicated')[] }[] = [
  { key: 'minilm', id: 'Xenova/all-MiniLM-L6-v2', floor: 0.971, mean: 0.989, where: ['shared', 'dedicated'] },
  { key: 'bge-small', id: 'Xenova/bge-small-en-v1.5', floor: 0.984, mean: 0.995, where: ['shared'] },
];

test.describe('real models in the browser worker', () => {
  test.beforeEach(async ({ page }) => {
    await page.goto('/e2e/bench.html');
    await expect(page.locator('#status')).toHaveText('ready');
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  });

  for (const model of MODELS) {
    for (const where of model.where) {
      test(`${model.key} in a ${where} worker matches the golden vectors`, async ({ page }) => {
        const golden = goldenVectors(model.key);
        const run = await page.evaluate(
          ({ id, texts, dedicated }) => window.bench.embed(id, texts, { dedicated }),
          { id: model.id, texts: sentences, dedicated: where === 'dedicated' },
        );
        const asQueries = await page.evaluate(
          ({ id, texts, dedicated }) => window.bench.embed(id, texts, { dedicated, input: 'query' }),
          { id: model.id, texts: queries, dedicated: where === 'dedicated' },
        );
        // Where it ran: WASM with SIMD; threads only where the worker is cross-origin isolated.
        const threads = run.isolation.crossOriginIsolated ? Math.min(4, run.isolation.hardwareConcurrency) : 1;
        expect(run.backend).toBe(`wasm · SIMD · ${threads} thread${threads === 1 ? '' : 's'}`);
        if (where === 'dedicated') expect(run.isolation.crossOriginIsolated).toBe(true);

        const q8 = [...cosines(run.vectors, golden.q8.sentences), ...cosines(asQueries.vectors, golden.q8.queries)];
        const reference = cosines(run.vectors, golden.sentences);
        const referenceQueries = cosines(asQueries.vectors, golden.queries);
        const mean = reference.reduce((a, b) => a + b, 0) / reference.length;
        console.log(
          `${model.key} ${where} (isolated: ${run.isolation.crossOriginIsolated}, ${run.backend}): load ${Math.round(run.loadMs)} ms, ${sentences.length} sentences ${Math.round(run.embedMs)} ms; ` +
            `vs native q8 min ${Math.min(...q8).toFixed(4)}; vs fp32 min ${Math.min(...reference).toFixed(4)} mean ${mean.toFixed(4)}, ${reference.filter((c) => c < 0.99).length} under 0.99`,
        );
        // onnxruntime-web's int8 kernels round differently from the native ones (≥ 0.98 to the
        // native q8 run), and land as close to the fp32 reference: the Node test's bounds hold.
        expect(Math.min(...q8)).toBeGreaterThanOrEqual(0.98);
        expect(reference.filter((c) => c < model.floor)).toEqual([]);
        expect(mean).toBeGreaterThanOrEqual(model.mean);
        expect(Math.min(...referenceQueries)).toBeGreaterThanOrEqual(model.floor);
      });
    }
  }
});
