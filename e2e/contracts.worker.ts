// The storage contract suites (test/contracts/) in a dedicated worker of Chromium: Dexie over the
// real IndexedDB and SQLite on OPFS (the sqlite-wasm driver, in the worker as the product runs it),
// then a store on OPFS opened, written, closed, reopened and deleted through createMemory. A small
// runner stands in for vitest (same describe/it/expect, @vitest/expect's matchers); the page hands
// the outcome to e2e/contracts.spec.ts.
import { chai, GLOBAL_EXPECT, getState, JestAsymmetricMatchers, JestChaiExpect, JestExtend, setState, ASYMMETRIC_MATCHERS_OBJECT, type ExpectStatic } from '@vitest/expect';
import { openDexieEngine, openDexieStorage } from '../src/adapters/storage-dexie.ts';
import { createMemoryStorage } from '../src/adapters/storage-memory.ts';
import { opfsPool, sqliteWasmDriver } from '../src/adapters/sql/driver-sqlite-wasm.ts';
import { sqlEngine } from '../src/adapters/sql/engine-sql.ts';
import { storageOver, type StorageEngine } from '../src/core/storage/index.ts';
import type { MemoryStorage } from '../src/core/ports.ts';
import { storagePortContract } from '../test/contracts/storage-port.cases.ts';
import { storageContract } from '../test/contracts/storage.cases.ts';
import { indexBlocksContract } from '../test/contracts/index-blocks.cases.ts';
import { idbBlockStore } from '../src/adapters/index-blocks-idb.ts';
import { sqlBlockStore } from '../src/adapters/sql/blocks-sql.ts';
import type { TestApi } from '../test/contracts/api.ts';
import { uniqueName } from '../test/helpers/names.ts';
import { opfsStoreSuite } from './contracts-opfs.ts';

export interface CaseResult {
  name: string;
  ok: boolean;
  ms: number;
  error?: string;
}

chai.use(JestExtend);
chai.use(JestChaiExpect);
chai.use(JestAsymmetricMatchers);

/** vitest's expect, rebuilt from its parts (what vitest's createExpect does, without a runner). */
function createExpect(): ExpectStatic {
  const expect = ((value: unknown, message?: string) => {
    setState({ assertionCalls: getState(expect).assertionCalls + 1 }, expect);
    return chai.expect(value, message);
  }) as unknown as ExpectStatic;
  Object.assign(expect, chai.expect);
  Object.assign(expect, (globalThis as Record<symbol, unknown>)[ASYMMETRIC_MATCHERS_OBJECT]);
  expect.getState = () => getState(expect);
  expect.setState = (state) => setState(state, expect);
  setState({ assertionCalls: 0, isExpectingAssertions: false, isExpectingAssertionsError: null, expectedAssertionsNumber: null, expectedAssertionsNumberErrorGen: null, testPath: 'browser', currentTestName: '' } as never, expect);
  (globalThis as Record<symbol, unknown>)[GLOBAL_EXPECT] = expect;
  return expect;
}

function runner(): { api: TestApi; run: (onCase: (r: CaseResult) => void) => Promise<CaseResult[]> } {
  const cases: { name: string; body: () => unknown; timeout: number }[] = [];
  const path: string[] = [];
  const api: TestApi = {
    describe(name, body) {
      path.push(name);
      try {
        body();
      } finally {
        path.pop();
      }
    },
    it(name, body, timeout = 60_000) {
      cases.push({ name: [...path, name].join(' › '), body, timeout });
    },
    expect: createExpect(),
  };
  return {
    api,
    async run(onCase) {
      const out: CaseResult[] = [];
      for (const c of cases) {
        const started = performance.now();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const result: CaseResult = await Promise.race([
          Promise.resolve().then(c.body),
          new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${c.timeout} ms`)), c.timeout))),
        ]).then(
          () => ({ name: c.name, ok: true, ms: 0 }),
          (error: unknown) => ({ name: c.name, ok: false, ms: 0, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }),
        );
        clearTimeout(timer);
        result.ms = Math.round(performance.now() - started);
        out.push(result);
        onCase(result);
      }
      return out;
    },
  };
}

/** An engine in a fresh file of the OPFS pool (a file and its journal: room for both first). */
async function opfsEngine(prefix: string): Promise<StorageEngine> {
  const pool = await opfsPool();
  await pool.reserveMinimumCapacity(pool.getFileCount() + 4);
  return sqlEngine(sqliteWasmDriver(pool, `/contracts/${uniqueName(prefix)}.sqlite`), `opfs:${prefix}`);
}
const opfsStorage = async (name: string): Promise<MemoryStorage> => storageOver(await opfsEngine(name));

const { api, run } = runner();
// The runner itself: a failing expectation must fail its case (else every case here would pass).
api.it('the runner fails a case whose expectation fails', async () => {
  const caught = await Promise.resolve()
    .then(() => api.expect([1, { a: 2 }]).toEqual([1, { a: 3 }]))
    .then(() => null, (e: unknown) => e);
  if (!(caught instanceof Error)) throw new Error('expect(…).toEqual did not throw on a difference');
  await api.expect(Promise.reject(new Error('x'))).rejects.toThrow('x');
});
storagePortContract(api, [
  { name: 'dexie (IndexedDB)', open: () => openDexieEngine(uniqueName('port')) },
  { name: 'sqlite (OPFS)', open: () => opfsEngine('port') },
]);
storageContract(
  api,
  [
    { name: 'dexie (IndexedDB)', open: () => openDexieStorage(uniqueName('contract')) },
    { name: 'memory', open: async () => createMemoryStorage() },
    { name: 'sqlite (OPFS)', open: () => opfsStorage('contract') },
  ],
  [(name) => openDexieStorage(name), opfsStorage],
);
// SQLite in OPFS lends each block from its own memory on a transient read (driver-sqlite-wasm.ts).
indexBlocksContract(api, [
  { name: 'IndexedDB', open: async () => idbBlockStore({ database: uniqueName('blocks'), create: true }) },
  {
    name: 'SQLite (OPFS)',
    open: async () => {
      const pool = await opfsPool();
      await pool.reserveMinimumCapacity(pool.getFileCount() + 2);
      return sqlBlockStore(sqliteWasmDriver(pool, `/contracts/${uniqueName('blocks')}.sqlite`));
    },
  },
]);
opfsStoreSuite(api);

void run((r) => postMessage({ kind: 'case', result: r })).then(
  (results) => postMessage({ kind: 'done', results }),
  (error: unknown) => postMessage({ kind: 'done', results: [{ name: 'runner', ok: false, ms: 0, error: String(error) }] }),
);
