/**
 * One pouchdb-server per test file (started before its tests, disposed after) and a fresh
 * database per call, readable by `members` only: the set-up the sync test files share.
 */
import { afterAll, beforeAll } from 'vitest';
import { startCouchServer, type CouchServer } from './couch-server.ts';

export const ALICE = { username: 'alice', password: 'alice-pw' };

export interface CouchSuite {
  /** The file's server (set once `beforeAll` ran). */
  readonly server: CouchServer;
  /** A new database `<prefix>-<n>` for `members` (default: alice). */
  database(members?: { username: string; password: string }[]): Promise<string>;
}

export function useCouchServer(prefix: string): CouchSuite {
  let server: CouchServer | undefined;
  let counter = 0;
  beforeAll(async () => {
    server = await startCouchServer();
  }, 60_000);
  afterAll(async () => {
    await server?.dispose();
  });
  return {
    get server() {
      if (!server) throw new Error('the couch server starts in beforeAll');
      return server;
    },
    database: (members = [ALICE]) => (server ? server.userDatabase(`${prefix}-${++counter}`, members) : Promise.reject(new Error('the couch server starts in beforeAll'))),
  };
}
