/**
 * Issue #52 item 1 (first part): a Node store that persists. `createMemory({ name, dir })` keeps
 * the store in one SQLite file under `dir` (rows and the int8 index's blocks), through the same
 * storage rules as Dexie and the in-memory storage (the contract suites run it too:
 * storage-port.contract.test.ts, storage.contract.test.ts); another process finds it, without any
 * IndexedDB.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { storeFile } from '../src/adapters/sql/node-store.ts';
import { sqlBlockStore } from '../src/adapters/sql/blocks-sql.ts';
import { betterSqliteDriver } from '../src/adapters/sql/driver-better-sqlite3.ts';
import { createMemory } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { memoryStorages } from '../src/adapters/storage-memory.ts';

const dir = mkdtempSync(join(tmpdir(), 'houkai-dir-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SCRIPT = fileURLToPath(new URL('./fixtures/dir-store.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

function run(...args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>);
    });
  });
}

describe('a store in a folder', () => {
  it('outlives its process: another process, with no IndexedDB, opens it from its file and its index blocks', async () => {
    const folder = join(dir, 'agents');
    expect(await run('write', folder, 'The standup is at 9:30', 'Deploys go out on Thursdays', 'The staging cluster is deploy-stg-2')).toEqual({ wrote: 3 });
    expect(existsSync(storeFile(folder, 'agent:desk'))).toBe(true);
    expect(await run('read', folder, 'which cluster is staging?')).toEqual({ count: 3, top: 'The staging cluster is deploy-stg-2', opened: 'snapshot' });
  }, 120_000);

  it('a snapshot that fails to load is rebuilt and saved whole over the old one: the next open loads it', async () => {
    // Before, the SQLite block store checked the old snapshot's tag on a whole rewrite too, so a
    // store whose snapshot was damaged rebuilt its index at every open, never saving it again.
    const options = { name: 'damaged-snapshot', dir, embedder: createHashEmbedder(), index: 'hnsw-i8' as const, snapshotDelayMs: 0, maintenance: { enabled: false } };
    const first = await createMemory(options);
    await first.rememberMany(['The standup is at 9:30', 'Deploys go out on Thursdays', 'The staging cluster is deploy-stg-2']);
    await first.close();
    // A foreign manifest (another dimension) with a tag of its own: the load fails closed.
    const blocks = sqlBlockStore(betterSqliteDriver(storeFile(dir, options.name)));
    const manifest = (await blocks.readManifest()) as Record<string, unknown> & { tag: string };
    expect(await blocks.write({ manifest: { ...manifest, dim: 7, tag: 'foreign' }, expectTag: manifest.tag, replaceAll: false, blocks: [] })).toBe(true);
    blocks.close();
    const second = await createMemory(options);
    expect(second.opened).toBe('rebuilt');
    expect(await second.count()).toBe(3);
    await second.flush(); // the graph built in the background, then saved
    await second.close();
    const third = await createMemory(options);
    try {
      expect(third.opened).toBe('snapshot');
      expect((await third.recall('which cluster is staging?', { k: 1, touch: false }))[0]!.memory.text).toBe('The staging cluster is deploy-stg-2');
    } finally {
      await third.close();
    }
  });

  it('reopens in the same process with its memories, links and journal', async () => {
    const options = { name: 'reopen', dir, embedder: createHashEmbedder(), snapshotDelayMs: 0 };
    const first = await createMemory(options);
    const a = await first.remember('My phone number is 0161 555 0142.', { createdAt: 1_700_000_000 });
    const b = await first.remember('My phone number is 07700 900318.', { createdAt: 1_700_100_000 });
    await first.close();
    const again = await createMemory(options);
    try {
      expect(await again.count()).toBe(2);
      const hits = await again.recall('what is my phone number?', { touch: false });
      expect(hits.map((h) => [h.memory.id, h.outdatedBy])).toEqual([
        [b.memory.id, []],
        [a.memory.id, [b.memory.id]],
      ]);
      expect((await again.journalTail(5)).map((e) => e.op)).toEqual(['link', 'remember', 'remember']);
    } finally {
      await again.close();
    }
  });

  it('refuses a bad folder or a folder and a storage together, before anything is written', async () => {
    await expect(createMemory({ name: 'x', dir: '', embedder: createHashEmbedder() })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'dir' } });
    await expect(createMemory({ name: 'x', dir, storage: memoryStorages(), embedder: createHashEmbedder() })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'dir' } });
    // Any name stays inside the folder.
    expect(storeFile(dir, '../escape')).toBe(join(dir, '%2E.%2Fescape.houkai.sqlite'));
  });
});
