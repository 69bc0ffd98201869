import 'fake-indexeddb/auto';
import { createMemory, type CreateMemoryOptions, type LocalMemory } from '../../src/local.ts';
import { memoryStorages } from '../../src/adapters/storage-memory.ts';
import { createHashEmbedder } from './fake-embedder.ts';
import { uniqueName } from './names.ts';

export { manualClock, uniqueName } from './names.ts';

/** HOUKAI_TEST_STORAGE=memory runs the store tests on the in-memory storage instead of Dexie. */
const onMemory = process.env['HOUKAI_TEST_STORAGE'] === 'memory' ? memoryStorages() : null;

/** A store on the hash embedder and the exact index unless told otherwise. */
export async function openTestStore(options: CreateMemoryOptions = {}): Promise<LocalMemory> {
  return createMemory({ name: uniqueName(), embedder: createHashEmbedder(), index: 'exact', ...(onMemory ? { storage: onMemory } : {}), ...options });
}
