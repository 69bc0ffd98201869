/**
 * End-to-end encrypted sync against a real CouchDB-protocol server (#31): the server's raw
 * documents hold ids, revisions and ciphertext only; the same passphrase on another device reads
 * everything; a wrong passphrase, none against an encrypted database, or encryption over a
 * database of plain memories is SYNC_KEY with nothing written; a passphrase change reseals every
 * document with progress and resumes after an interruption; a forget leaves no text behind.
 */
import { describe, expect, it } from 'vitest';
import type { LocalMemory } from '../src/local.ts';
import { openTestStore, uniqueName } from './helpers/store.ts';
import { ADMIN, plainParts, request } from './helpers/couch-server.ts';
import { ALICE, useCouchServer } from './helpers/couch-suite.ts';
import { codeAndReason } from './helpers/expect.ts';

const PASS = 'correct horse battery staple';
const NEW_PASS = 'a whole new passphrase';

const couch = useCouchServer('enc');

const newDb = (): Promise<string> => couch.database();

/** Every document the server holds, as the server stores it (deleted ones and conflicts too). */
async function rawDocs(url: string): Promise<Record<string, unknown>[]> {
  const changes = await request(`${url}/_changes?include_docs=true&style=all_docs&conflicts=true`, 'GET', undefined, ADMIN);
  return (changes.body as { results: { doc: Record<string, unknown> }[] }).results.map((r) => r.doc);
}


const texts = async (store: LocalMemory): Promise<string[]> => (await store.listRecent({ limit: 1000 })).map((m) => m.text).sort();

describe('end-to-end encrypted sync', () => {
  it('the server holds ciphertext only; the same passphrase on another device reads and writes everything; a forget leaves no text', async () => {
    const url = await newDb();
    const a = await openTestStore();
    const b = await openTestStore();
    try {
      const secrets = ['Ana is allergic to penicillin', 'The safe code is 4711', 'Ana moved to Lisbon in May'];
      const ids = (await a.rememberMany(secrets.map((text) => ({ text, tags: ['health-private'] })))).map((r) => r.memory.id);
      await a.link(ids[0]!, ids[1]!, 'related');
      await a.sync({ url, auth: ALICE, encryption: { passphrase: PASS } });
      await b.remember('Written on the second device, sealed there');
      await b.sync({ url, auth: ALICE, encryption: { passphrase: PASS } });
      await a.sync({ url, auth: ALICE, encryption: { passphrase: PASS } });
      expect(await texts(b)).toEqual(await texts(a));
      expect(await texts(a)).toHaveLength(4);
      expect((await b.get(ids[0]!))!.links).toEqual([{ to: ids[1], rel: 'related' }]);
      expect((await b.get(ids[0]!))!.tags).toEqual(['health-private']);

      await b.forget(ids[2]!);
      await b.sync({ url, auth: ALICE, encryption: { passphrase: PASS } });
      await a.sync({ url, auth: ALICE, encryption: { passphrase: PASS } });
      expect(await a.get(ids[2]!)).toBeNull();

      const docs = await rawDocs(url);
      const everything = plainParts(docs);
      for (const word of ['penicillin', '4711', 'Lisbon', 'second device', 'health-private', 'related', 'semantic', 'importance', 'f32']) {
        expect(everything).not.toContain(word);
      }
      const memoryDocs = docs.filter((d) => String(d._id).startsWith('m:'));
      expect(memoryDocs).toHaveLength(4);
      for (const d of memoryDocs) {
        // A forget is sealed too (as one, for its revision): a deletion nobody holding the key sealed forgets nothing.
        expect(Object.keys(d).sort()).toEqual(d._deleted ? ['_deleted', '_id', '_rev', 'by', 'enc', 'kind', 'op', 'v'] : ['_id', '_rev', 'by', 'enc', 'kind', 'v']);
        if (d._deleted) expect(d.op).toBe('forget');
      }
      const key = docs.find((d) => d._id === 'houkai:key') as { current: { kdf: { iterations: number; salt: string } } };
      expect(key.current.kdf.iterations).toBe(600_000);
      expect(await b.syncStatus()).toMatchObject({ totals: { unreadable: 0 } });
    } finally {
      await a.close();
      await b.close();
    }
  }, 120_000);

  it('a wrong passphrase, none against an encrypted database, or encryption over plain memories: SYNC_KEY, nothing written here or there', async () => {
    const url = await newDb();
    const a = await openTestStore();
    const wrong = await openTestStore();
    const plain = await openTestStore();
    try {
      await a.remember('sealed on the first device');
      await a.sync({ url, auth: ALICE, encryption: { passphrase: PASS } });
      const before = JSON.stringify(await rawDocs(url));

      await wrong.remember('must not reach the server');
      expect(await codeAndReason(wrong.sync({ url, auth: ALICE, encryption: { passphrase: 'not the passphrase' } }))).toEqual({ code: 'SYNC_KEY', reason: 'wrong-key' });
      expect(await texts(wrong)).toEqual(['must not reach the server']);
      expect((await wrong.syncStatus()).error).toMatchObject({ code: 'SYNC_KEY' });

      await plain.remember('plaintext that must not reach the server');
      expect(await codeAndReason(plain.sync({ url, auth: ALICE }))).toEqual({ code: 'SYNC_KEY', reason: 'encrypted' });
      expect(await texts(plain)).toEqual(['plaintext that must not reach the server']);
      expect(JSON.stringify(await rawDocs(url))).toBe(before);

      // A database that already holds plain memories cannot be made encrypted in place.
      const plainUrl = await newDb();
      await plain.sync({ url: plainUrl, auth: ALICE });
      expect(await codeAndReason(a.sync({ url: plainUrl, auth: ALICE, encryption: { passphrase: PASS } }))).toEqual({ code: 'SYNC_KEY', reason: 'plain-memories' });
      expect((await rawDocs(plainUrl)).filter((d) => String(d._id).startsWith('m:'))).toHaveLength(1);

      // Bad secrets are refused before anything is asked of the server.
      expect(await codeAndReason(a.sync({ url, auth: ALICE, encryption: { passphrase: 'short' } }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(await codeAndReason(a.sync({ url, auth: ALICE, encryption: { key: 'not a key' as never } }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    } finally {
      await a.close();
      await wrong.close();
      await plain.close();
    }
  }, 120_000);

  it('a plain device syncing a database made encrypted since stops before its next upload', async () => {
    const url = await newDb();
    const plain = await openTestStore();
    const sealer = await openTestStore();
    try {
      await plain.sync({ url, auth: ALICE });
      await sealer.remember('sealed');
      await sealer.sync({ url, auth: ALICE, encryption: { passphrase: PASS } });
      await plain.remember('plaintext written after the database became encrypted');
      expect(await codeAndReason(plain.sync({ url, auth: ALICE }))).toEqual({ code: 'SYNC_KEY', reason: 'encrypted' });
      expect(plainParts(await rawDocs(url))).not.toContain('plaintext written');
    } finally {
      await plain.close();
      await sealer.close();
    }
  }, 120_000);

  it('a passphrase change reseals every document with progress, resumes after an interruption, and leaves the old passphrase refused', async () => {
    const url = await newDb();
    const a = await openTestStore();
    const b = await openTestStore();
    try {
      await a.rememberMany(Array.from({ length: 450 }, (_, i) => `memory ${i} under the first passphrase`));
      await a.sync({ url, auth: ALICE, encryption: { passphrase: PASS } });
      await b.sync({ url, auth: ALICE, encryption: { passphrase: PASS } });
      const oldKey = ((await rawDocs(url)).find((d) => d._id === 'houkai:key') as { current: { id: string } }).current.id;

      // Interrupted after the first batch is sealed again.
      const stop = new AbortController();
      const first = await codeAndReason(a.sync({
        url, auth: ALICE, signal: stop.signal, retries: 0,
        encryption: { passphrase: PASS, newPassphrase: NEW_PASS },
        onProgress: (e) => { if (e.kind === 'sync' && e.phase === 'rekey') stop.abort(); },
      }));
      expect(first.code).toBe('ABORTED');
      const midway = (await rawDocs(url)).find((d) => d._id === 'houkai:key') as { current: { id: string }; previous?: { id: string } };
      expect(midway.previous?.id).toBe(oldKey);

      // Resumed: every document ends under the new key, the old entry is gone.
      const phases: number[] = [];
      await a.sync({
        url, auth: ALICE,
        encryption: { passphrase: PASS, newPassphrase: NEW_PASS },
        onProgress: (e) => { if (e.kind === 'sync' && e.phase === 'rekey') phases.push(e.done); },
      });
      expect(phases.length).toBeGreaterThan(0);
      const docs = await rawDocs(url);
      const key = docs.find((d) => d._id === 'houkai:key') as { current: { id: string }; previous?: unknown };
      expect(key.previous).toBeUndefined();
      expect((key as { retired?: { id: string }[] }).retired?.map((r) => r.id)).toEqual([oldKey]);
      expect(key.current.id).not.toBe(oldKey);
      const sealedUnder = new Set(docs.filter((d) => String(d._id).startsWith('m:')).map((d) => (d.enc as { k: string }).k));
      expect([...sealedUnder]).toEqual([key.current.id]);

      // The other device: the old passphrase is refused, the new one reads everything.
      expect(await codeAndReason(b.sync({ url, auth: ALICE, encryption: { passphrase: PASS } }))).toEqual({ code: 'SYNC_KEY', reason: 'changed' });
      await b.remember('written after the change');
      await b.sync({ url, auth: ALICE, encryption: { passphrase: NEW_PASS } });
      await a.sync({ url, auth: ALICE, encryption: { passphrase: NEW_PASS } });
      expect(await a.count()).toBe(451);
      expect(await texts(b)).toEqual(await texts(a));
      expect((await b.syncStatus()).totals.unreadable).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  }, 180_000);

  it('a CryptoKey instead of a passphrase; a document altered on the server is refused and counted, never applied: the revision under it is read instead', async () => {
    const url = await newDb();
    const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    const a = await openTestStore();
    const b = await openTestStore();
    try {
      const id = (await a.remember('sealed with a key the app holds')).memory.id;
      await a.remember('a second memory');
      await a.sync({ url, auth: ALICE, encryption: { key } });
      expect(await codeAndReason(b.sync({ url, auth: ALICE, encryption: { passphrase: PASS } }))).toEqual({ code: 'SYNC_KEY', reason: 'wrong-key' });
      // The server swaps one document's ciphertext for another's: it is bound to its id, so it does not open.
      const docs = await rawDocs(url);
      const target = docs.find((d) => d._id === `m:${id}`)!;
      const other = docs.find((d) => String(d._id).startsWith('m:') && d._id !== `m:${id}`)!;
      await request(`${url}/m:${id}`, 'PUT', { ...target, enc: other.enc }, ALICE);
      await b.sync({ url, auth: ALICE, encryption: { key } });
      // Refused and counted; the revision it was written over, still on the server, is what B takes in.
      expect((await b.get(id))?.text).toBe('sealed with a key the app holds');
      expect(await b.count()).toBe(2);
      expect((await b.syncStatus()).totals.unreadable).toBe(1);
    } finally {
      await a.close();
      await b.close();
    }
  }, 120_000);

  it('remember: the opened key (never the passphrase) is kept in the store for that address; a later sync needs no passphrase until it is forgotten', async () => {
    const url = await newDb();
    const name = uniqueName('remember');
    let a = await openTestStore({ name });
    try {
      await a.remember('kept under a remembered key');
      await a.sync({ url, auth: ALICE, encryption: { passphrase: PASS, remember: true } });
      expect((await a.syncStatus()).encrypted).toBe(true);
      await a.close();
      a = await openTestStore({ name });
      await a.remember('written after reopening');
      await a.sync({ url, auth: ALICE });
      expect((await a.syncStatus()).encrypted).toBe(true);
      expect(plainParts(await rawDocs(url))).not.toContain('reopening');
      await a.sync({ url, auth: ALICE, encryption: { passphrase: PASS, remember: false } });
      expect(await codeAndReason(a.sync({ url, auth: ALICE }))).toEqual({ code: 'SYNC_KEY', reason: 'encrypted' });
    } finally {
      await a.close();
    }
  }, 120_000);
});

