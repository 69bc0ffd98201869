/**
 * Sync with a team database, a stranger's input (#31): `maxTrust` caps what the remote says about
 * trust and pins, as `importArchive({ maxTrust })` does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore } from './helpers/store.ts';
import { request, startCouchServer, type CouchServer } from './helpers/couch-server.ts';

const ALICE = { username: 'alice', password: 'alice-pw' };

let server: CouchServer;
let dbCounter = 0;

beforeAll(async () => {
  server = await startCouchServer();
}, 60_000);

afterAll(async () => {
  await server?.dispose();
});

const teamDb = (): Promise<string> => server.userDatabase(`team-${++dbCounter}`, [ALICE]);

const doc = (id: string, memory: Record<string, unknown>): Record<string, unknown> => ({
  _id: `m:${id}`,
  kind: 'houkai-memory',
  v: 1,
  memory: { id, text: `memory ${id}`, type: 'semantic', tags: [], importance: 0.5, createdAt: 1_760_000_000, source: null, links: [], ...memory },
});

describe('sync({ maxTrust })', () => {
  it('stores what a team database says is trusted and pinned at the ceiling, unpinned; without it the remote is taken at its word', async () => {
    const url = await teamDb();
    const put = await request(`${url}/_bulk_docs`, 'POST', {
      docs: [
        doc('claims-trust', { trust: 'trusted', pinned: true }),
        doc('already-low', { trust: 'untrusted' }),
        doc('reported', { trust: 'reported', pinned: true }),
      ],
    }, ALICE);
    expect(put.status).toBe(201);

    const capped = await openTestStore();
    const open = await openTestStore();
    try {
      await capped.sync({ url, auth: ALICE, maxTrust: 'reported' });
      expect(await capped.get('claims-trust')).toMatchObject({ trust: 'reported', pinned: false });
      expect(await capped.get('already-low')).toMatchObject({ trust: 'untrusted', pinned: false });
      expect(await capped.get('reported')).toMatchObject({ trust: 'reported', pinned: false });
      // A later edit on the server comes in capped too.
      const current = (await request(`${url}/m:claims-trust`, 'GET', undefined, ALICE)).body as Record<string, unknown>;
      const memory = current.memory as Record<string, unknown>;
      await request(`${url}/m:claims-trust`, 'PUT', { ...current, memory: { ...memory, text: 'memory claims-trust, edited', pinned: true } }, ALICE);
      await capped.sync({ url, auth: ALICE, maxTrust: 'untrusted' });
      expect(await capped.get('claims-trust')).toMatchObject({ text: 'memory claims-trust, edited', trust: 'untrusted', pinned: false });

      await open.sync({ url, auth: ALICE });
      expect(await open.get('claims-trust')).toMatchObject({ trust: 'trusted', pinned: true });

      const refused = await capped.sync({ url, auth: ALICE, maxTrust: 'sort of' as never }).catch((e: { code?: string }) => e.code);
      expect(refused).toBe('INVALID_ARGUMENT');
    } finally {
      await capped.close();
      await open.close();
    }
  }, 60_000);
});
