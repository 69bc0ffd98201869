/**
 * A real CouchDB-protocol server for the sync tests: `pouchdb-server` (npm) on a free loopback
 * port, its data in a temporary folder (so a restart keeps it), seeded with an admin, users and
 * databases with `_security`, stopped by its process id. Every wait is bounded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';

export const ADMIN = { username: 'admin', password: 'admin-secret' };

export interface CouchServer {
  url: string;
  port: number;
  /** Stops the process (SIGKILL when `hard`: the server dies mid-request). */
  stop(hard?: boolean): Promise<void>;
  /** Starts it again on the same port and data. */
  restart(): Promise<void>;
  /** An admin request; returns the status and JSON body. */
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  /** A user with a password, and a database only they (and the admin) may read and write. */
  userDatabase(db: string, members: { username: string; password: string }[]): Promise<string>;
  /** Removes the data folder (after stop). */
  dispose(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const basic = (u: { username: string; password: string }): string => `Basic ${Buffer.from(`${u.username}:${u.password}`).toString('base64')}`;

export async function request(url: string, method: string, body?: unknown, auth?: { username: string; password: string }): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: basic(auth) } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

export async function startCouchServer(): Promise<CouchServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'houkai-couch-'));
  const bin = createRequire(import.meta.url).resolve('pouchdb-server/bin/pouchdb-server');
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;

  const launch = async (): Promise<void> => {
    child = spawn(process.execPath, [bin, '--port', String(port), '--host', '127.0.0.1', '--dir', dir], {
      cwd: dir,
      stdio: 'ignore',
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`pouchdb-server did not answer on ${url} within 30 s`);
      if (child.exitCode !== null) throw new Error(`pouchdb-server exited with ${child.exitCode}`);
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
        if (res.ok) return;
      } catch {
        /* not yet */
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  };
  const stop = async (hard = false): Promise<void> => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    c.kill(hard ? 'SIGKILL' : 'SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  };

  await launch();
  const admin = (method: string, path: string, body?: unknown) => request(`${url}${path}`, method, body, ADMIN);
  // Admin party ends here: from now on only the admin and the users below get in.
  await request(`${url}/_config/admins/${ADMIN.username}`, 'PUT', ADMIN.password);

  return {
    url,
    port,
    stop,
    restart: async () => {
      await stop();
      await launch();
    },
    admin,
    async userDatabase(db, members) {
      for (const m of members) {
        const res = await admin('PUT', `/_users/org.couchdb.user:${m.username}`, { name: m.username, password: m.password, roles: [], type: 'user' });
        if (res.status !== 201 && res.status !== 409) throw new Error(`creating user ${m.username}: ${res.status}`);
      }
      const created = await admin('PUT', `/${db}`);
      if (created.status !== 201 && created.status !== 412) throw new Error(`creating ${db}: ${created.status}`);
      await admin('PUT', `/${db}/_security`, { admins: { names: [], roles: [] }, members: { names: members.map((m) => m.username), roles: [] } });
      return `${url}/${db}`;
    },
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The documents as text with their random parts blanked: revision hashes, IVs, salts and
 * ciphertext are random characters that can hold a short word like `f32` by chance (a CI run met
 * `_rev: "1-7df32290…"`), and so are the random ids (memory ids and devices are UUIDs, key ids 24
 * hex digits: another CI run met `939015e4-9f76-44d4-bf32-…`); a leak cannot show in them as
 * plain text anyway.
 */
export function plainParts(docs: unknown): string {
  const random = new Set(['_rev', 'rev', 'ct', 'iv', 'salt']);
  return JSON.stringify(docs, (key, value: unknown) => (random.has(key) ? '…' : value))
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/\b[0-9a-f]{24}\b/g, '<key id>');
}
