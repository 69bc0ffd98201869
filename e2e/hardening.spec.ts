import { expect, test, type BrowserContext, type Page } from 'playwright/test';

// Issue #16 items 3 and 10 where the behaviour is the browser's: the worker inflates archives with
// Chromium's own DecompressionStream (falling back to the checked reader for several gzip
// members), and one slow regex in the shared worker stalls every tab.

async function openHarness(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log(`[pageerror] ${e.message}`));
  await page.goto('/e2e/harness.html');
  await expect(page.locator('#status')).toHaveText('ready');
  return page;
}

test('decompression bombs built in the page are refused by the worker within seconds, nothing written', async ({ context }) => {
  test.setTimeout(180_000);
  const page = await openHarness(context);
  const outcome = await page.evaluate(async () => {
    const gzip = async (bytes: Uint8Array): Promise<Uint8Array> =>
      new Uint8Array(await new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer());
    const header = new TextEncoder().encode('{"format":"ai-houkai/export","version":1,"source":{"embedding_dim":0}}\n');
    const newlines = new Uint8Array(1 << 20).fill(10);
    const member = await gzip(newlines);
    // Two thousand members of 1 MiB of newlines: ~2 MB holding 2 GB, two billion lines.
    const parts: BlobPart[] = [(await gzip(header)) as BlobPart];
    for (let i = 0; i < 2000; i++) parts.push(member as BlobPart);
    const multi = new Blob(parts);
    // One member of 256 MiB of newlines: Chromium's own inflater does the work.
    const big = new Uint8Array(256 << 20).fill(10);
    big.set(header);
    const single = new Blob([(await gzip(big)) as BlobPart]);
    const memory = await window.houkai.connect({ name: 'bombs' });
    await memory.remember('an existing memory');
    const results = [];
    for (const [label, file] of [['2,000 members', multi], ['one member', single]] as const) {
      const started = performance.now();
      try {
        await memory.importArchive(file);
        results.push({ label, ok: true });
      } catch (e) {
        const err = e as InstanceType<typeof window.houkai.MemoryError>;
        results.push({ label, instance: e instanceof window.houkai.MemoryError, code: err.code, reason: err.details?.reason, ms: performance.now() - started, bytes: file.size });
      }
    }
    return { results, count: await memory.count() };
  });
  for (const r of outcome.results) {
    expect(r).toMatchObject({ instance: true, code: 'INVALID_ARCHIVE', reason: 'too-many-lines' });
    expect((r as { ms: number }).ms).toBeLessThan(60_000); // before the bound: ~40 minutes
  }
  expect(outcome.count).toBe(1);
  console.log(`[attack] browser bombs: ${outcome.results.map((r) => `${r.label} (${(r as { bytes: number }).bytes} bytes) refused in ${Math.round((r as { ms: number }).ms)} ms`).join('; ')}`);
});

test('a recall with 1 MiB of adversarial whitespace answers at once and the worker stays responsive', async ({ context }) => {
  test.setTimeout(120_000);
  const page = await openHarness(context);
  const result = await page.evaluate(async () => {
    const memory = await window.houkai.connect({ name: 'redos' });
    await memory.remember('the deploy checklist lives in the wiki');
    const query = `a${' '.repeat((1 << 20) - 8)}b `; // 200k spaces took 70 s in the single owner
    const started = performance.now();
    await memory.recall(query, { k: 3 });
    const recallMs = performance.now() - started;
    const pinged = performance.now();
    await memory.count();
    return { recallMs, countMs: performance.now() - pinged };
  });
  expect(result.recallMs).toBeLessThan(10_000);
  expect(result.countMs).toBeLessThan(5_000);
  console.log(`[attack] browser ReDoS: recall of 1 MiB adversarial whitespace in ${Math.round(result.recallMs)} ms`);
});
