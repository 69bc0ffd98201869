// A dedicated worker for e2e/opfs-crash.spec.ts's move: it seeds a store in IndexedDB, starts
// moveMemory into OPFS (progress kept here for the page to poll) and checks a store afterwards.
import * as Comlink from 'comlink';
import { createMemory, moveMemory } from '../src/local.ts';
import { createHashEmbedder } from '../test/helpers/fake-embedder.ts';

const text = (i: number): string => `moved note ${i}: the key to locker ${i} hangs on hook ${i % 11}`;
let progress = { done: 0, total: 0, error: '' };

const open = (name: string, storage: 'indexeddb' | 'opfs') => createMemory({ name, embedder: createHashEmbedder(), storage, ...(storage === 'indexeddb' ? { index: 'hnsw-i8' as const } : {}) });

export const moverApi = {
  async seed(name: string, n: number): Promise<number> {
    const memory = await open(name, 'indexeddb');
    for (let i = 0; i < n; i += 1000) await memory.rememberMany(Array.from({ length: Math.min(1000, n - i) }, (_, j) => text(i + j)));
    await memory.flush();
    const count = await memory.count();
    await memory.close();
    return count;
  },
  startMove(name: string, to: 'opfs' | 'indexeddb'): void {
    progress = { done: 0, total: 0, error: '' };
    void moveMemory(name, to, { batch: 100, onProgress: (e) => void (e.kind === 'move' && (progress = { ...progress, done: e.done, total: e.total })) }).catch((e: { code?: string }) => (progress.error = e.code ?? String(e)));
  },
  progress: () => progress,
  move: (name: string, to: 'opfs' | 'indexeddb') => moveMemory(name, to),
  async check(name: string, storage: 'indexeddb' | 'opfs', probe: number): Promise<{ count: number; index: number; found: boolean }> {
    const memory = await open(name, storage);
    const stats = await memory.stats();
    const found = (await memory.recall(text(probe), { k: 1, touch: false, mode: 'hybrid' }))[0]?.memory.text === text(probe);
    await memory.close();
    return { count: stats.count, index: stats.index.size, found };
  },
};

Comlink.expose(moverApi);
