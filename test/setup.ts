// Dexie and hnswlib-wasm read the global IndexedDB when first imported, so install the fake
// one before any test module loads them.
import 'fake-indexeddb/auto';
