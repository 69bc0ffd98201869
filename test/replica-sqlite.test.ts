/**
 * A store in a folder keeps its sync replica on disk (#52, the 50,000-memory first sync's memory):
 * PouchDB's LevelDB adapter over a key-value table in `<name>.houkai-sync.sqlite`. The LevelDB
 * interface as PouchDB uses it (bytewise key order, ranges both ways, limits, values back as they
 * went in, a batch all or nothing), a PouchDB database that survives its close, and a store whose
 * second process syncs nothing it already has, while two stores of one name in two folders keep
 * two replicas.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replicaFile, sqliteLevelDown } from '../src/adapters/sql/replica-sqlite.ts';
import { storeFile } from '../src/adapters/sql/node-store.ts';
import { createMemory } from '../src/local.ts';
import { startCouchServer, type CouchServer } from './helpers/couch-server.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';

const dir = mkdtempSync(join(tmpdir(), 'houkai-replica-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Down = ReturnType<ReturnType<typeof sqliteLevelDown>>;
const call = <T = unknown>(fn: (cb: (error?: Error | null, value?: T) => void) => void): Promise<T> =>
  new Promise((resolve, reject) => fn((error, value) => (error ? reject(error) : resolve(value as T))));

async function entries(down: Down, options: Record<string, unknown>): Promise<[string, string][]> {
  const it = down.iterator({ keyAsBuffer: false, valueAsBuffer: false, ...options });
  const out: [string, string][] = [];
  for (;;) {
    const next = await new Promise<[string, string] | null>((resolve, reject) =>
      it.next((error, key, value) => (error ? reject(error) : resolve(key === undefined ? null : [String(key), String(value)]))),
    );
    if (!next) break;
    out.push(next);
  }
  await call((cb) => it.end(cb));
  return out;
}

describe('the LevelDB interface over SQLite', () => {
  const file = join(dir, 'kv.houkai-sync.sqlite');
  let down: Down;
  beforeAll(async () => {
    down = sqliteLevelDown(file)('one');
    await call((cb) => down.open({}, cb));
  });
  afterAll(() => call((cb) => down.close(cb)));

  it('orders keys bytewise, reads ranges both ways with limits, and gives values back as they went in', async () => {
    // 'é' (0xC3 0xA9) after 'z'; '!' before letters; 300 keys spill over several pages.
    const keys = ['b', 'a', 'z', 'é', '!x', 'ab', ...Array.from({ length: 300 }, (_, i) => `p${String(i).padStart(3, '0')}`)];
    await call((cb) => down.batch(keys.map((key) => ({ type: 'put' as const, key, value: `v:${key}` })), {}, cb));
    const all = await entries(down, {});
    expect(all.map(([k]) => k)).toEqual([...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))));
    expect(all[0]).toEqual(['!x', 'v:!x']);
    expect((await entries(down, { gt: 'a', lt: 'b' })).map(([k]) => k)).toEqual(['ab']);
    expect((await entries(down, { gte: 'a', lte: 'b' })).map(([k]) => k)).toEqual(['a', 'ab', 'b']);
    expect((await entries(down, { reverse: true, limit: 2 })).map(([k]) => k)).toEqual(['é', 'z']);
    expect((await entries(down, { gte: 'p', lt: 'q', limit: 200 })).length).toBe(200);
    expect((await entries(down, { gte: 'p', lt: 'q', reverse: true })).at(0)![0]).toBe('p299');
    expect(await call((cb) => down.get('ab', { asBuffer: false }, cb))).toBe('v:ab');
    expect(Buffer.isBuffer(await call((cb) => down.get('ab', {}, cb)))).toBe(true);
    const bytes = Buffer.from([0, 255, 7]);
    await call((cb) => down.put('bin', bytes, {}, cb));
    expect(await call((cb) => down.get('bin', { asBuffer: false }, cb))).toEqual(bytes);
    await call((cb) => down.del('ab', {}, cb));
    await expect(call((cb) => down.get('ab', {}, cb))).rejects.toMatchObject({ notFound: true });
  });

  it('a batch is all or nothing, and another replica in the file sees none of this one', async () => {
    const before = await entries(down, {});
    const bad = [{ type: 'put' as const, key: 'new', value: 'x' }, { type: 'put' as const, key: 'broken', value: 'y' }];
    // A value that cannot be written fails the batch part-way: nothing of it is written.
    (bad[1] as { value: unknown }).value = { toString: () => { throw new Error('unwritable'); } };
    await expect(call((cb) => down.batch(bad, {}, cb))).rejects.toThrow();
    expect(await entries(down, {})).toEqual(before);
    const other = sqliteLevelDown(file)('two');
    await call((cb) => other.open({}, cb));
    expect(await entries(other, {})).toEqual([]);
    await call((cb) => other.close(cb));
  });
});

describe('a store in a folder syncs through a replica on disk', () => {
  let server: CouchServer;
  const auth = { username: 'replica', password: 'replica-pw' };
  beforeAll(async () => {
    server = await startCouchServer();
  }, 60_000);
  afterAll(() => server?.dispose());

  it('keeps its replica across processes: the second round replicates nothing it has; a same-named store elsewhere keeps its own', async () => {
    const url = await server.userDatabase('replica', [auth]);
    const writer = await createMemory({ name: 'w', dir: join(dir, 'w'), embedder: createHashEmbedder() });
    await writer.rememberMany(Array.from({ length: 40 }, (_, i) => `Note ${i}: the replica keeps it on disk.`));
    await writer.sync({ url, auth });
    await writer.close();

    const options = { name: 'agent', dir: join(dir, 'a'), embedder: createHashEmbedder() };
    const first = await createMemory(options);
    expect(await first.sync({ url, auth })).toMatchObject({ applied: 40, received: 40 });
    await first.close();
    expect(existsSync(replicaFile(storeFile(options.dir, 'agent')))).toBe(true);

    const again = await createMemory(options);
    const second = await again.sync({ url, auth });
    expect(second).toMatchObject({ applied: 0, received: 0 }); // nothing came over the wire again
    expect(await again.count()).toBe(40);
    await again.close();

    // The same store name in another folder: its own replica, so it pulls everything.
    const elsewhere = await createMemory({ ...options, dir: join(dir, 'b') });
    expect((await elsewhere.sync({ url, auth })).applied).toBe(40);
    await elsewhere.close();
  }, 120_000);
});
