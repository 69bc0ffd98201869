/**
 * The store's write path alone: p50 of `remember` and of an `edit` that changes no text (hash
 * embedder, exact index, fake-indexeddb in Node), so what a write transaction does around the
 * model shows. `npx tsx bench/write-path.ts [source root]`: pass another checkout's root to
 * compare two versions in one run (interleave the runs; the machine is shared and noisy).
 */
import 'fake-indexeddb/auto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = pathToFileURL(resolve(process.argv[2] ?? '.')).href;
const { createMemory } = (await import(`${root}/src/local.ts`)) as typeof import('../src/local.ts');
const { createHashEmbedder } = (await import(`${root}/test/helpers/fake-embedder.ts`)) as typeof import('../test/helpers/fake-embedder.ts');

const store = await createMemory({ name: `write-path-${Date.now()}`, embedder: createHashEmbedder(), index: 'exact' });
for (let i = 0; i < 200; i++) await store.remember(`warm up note ${i}`, { onConflict: 'ignore' });
const timed = async (run: () => Promise<unknown>): Promise<number> => {
  const t = performance.now();
  await run();
  return performance.now() - t;
};
const remember: number[] = [];
for (let i = 0; i < 1000; i++) remember.push(await timed(() => store.remember(`timed note number ${i} about the build`, { onConflict: 'ignore' })));
const edit: number[] = [];
for (const m of await store.listRecent({ limit: 500 })) edit.push(await timed(() => store.edit(m.id, { importance: 0.7 })));
const p50 = (a: number[]): number => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
console.log(JSON.stringify({ root: process.argv[2] ?? '.', remember_p50_ms: +p50(remember).toFixed(3), edit_p50_ms: +p50(edit).toFixed(3) }));
await store.close();
