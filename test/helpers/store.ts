import 'fake-indexeddb/auto';
import { createMemory, type CreateMemoryOptions, type LocalMemory } from '../../src/local.ts';
import { memoryStorages } from '../../src/adapters/storage-memory.ts';
import { createHashEmbedder } from './fake-embedder.ts';

/** HOUKAI_TEST_STORAGE=memory runs the store tests on the in-memory storage instead of Dexie. */
const onMemory = process.env['HOUKAI_TEST_STORAGE'] === 'memory' ? memoryStorages() : null;

let counter = 0;
/** A unique store name, so tests sharing the global fake IndexedDB never see each other's data. */
export function uniqueName(prefix = 'test'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now()}-${counter}`;
}

/** A settable clock (Unix seconds). */
export function manualClock(start = 1_760_000_000.25): { now(): number; advance(seconds: number): void; set(t: number): void } {
  let t = start;
  return { now: () => t, advance: (s) => void (t += s), set: (v) => void (t = v) };
}

/** A store on the hash embedder and the exact index unless told otherwise. */
export async function openTestStore(options: CreateMemoryOptions = {}): Promise<LocalMemory> {
  return createMemory({ name: uniqueName(), embedder: createHashEmbedder(), index: 'exact', ...(onMemory ? { storage: onMemory } : {}), ...options });
}
