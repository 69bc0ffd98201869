/**
 * Sync when the server fails at one exact point (#31, repro-kill-unhandled): PouchDB's replicator
 * asks the source for its info after each batch and never handles a failure; with the server
 * gone at that moment the rejection went unhandled and ended the Node process. A proxy drops
 * exactly those requests: the round neither crashes the process nor leaves a rejection unhandled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore } from './helpers/store.ts';
import { startCouchServer, type CouchServer } from './helpers/couch-server.ts';
import { startFlakyProxy } from './helpers/flaky-proxy.ts';

const ALICE = { username: 'alice', password: 'alice-pw' };
let server: CouchServer;

beforeAll(async () => {
  server = await startCouchServer();
}, 60_000);

afterAll(async () => {
  await server?.dispose();
});

describe('sync against a server failing mid-round', () => {
  it('the database info asked mid-pull fails: no unhandled rejection, the round still completes', async () => {
    const url = await server.userDatabase('faults-info', [ALICE]);
    const db = new URL(url).pathname;
    const unhandled: unknown[] = [];
    const count = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', count);
    let pulling = false;
    const proxy = await startFlakyProxy(server.url, (req) => {
      if (req.url?.startsWith(`${db}/_changes`)) pulling = true;
      return pulling && req.method === 'GET' && (req.url === `${db}/` || req.url?.startsWith(`${db}/?`) === true);
    });
    const a = await openTestStore();
    const b = await openTestStore();
    try {
      await a.rememberMany(Array.from({ length: 600 }, (_, i) => `memory number ${i} written on the first device`));
      await a.sync({ url, auth: ALICE });
      const result = await b.sync({ url: `${proxy.url}${db}`, auth: ALICE, retries: 0 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(proxy.dropped).toBeGreaterThan(0);
      expect(unhandled).toEqual([]);
      expect(result.applied).toBe(600);
      expect(await b.count()).toBe(600);
    } finally {
      process.off('unhandledRejection', count);
      await a.close();
      await b.close();
      await proxy.close();
    }
  }, 120_000);
});
