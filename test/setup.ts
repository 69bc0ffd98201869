// Dexie and hnswlib-wasm read the global IndexedDB when first imported, so install the fake
// one before any test module loads them.
import 'fake-indexeddb/auto';

// The archive code's gzip engine is installed by the composition roots (createMemory); tests that
// call the archive functions directly get the same one.
import { useFflateGzip } from '../src/adapters/gzip-fflate.ts';
useFflateGzip();
