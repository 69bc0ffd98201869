/**
 * A large database for the first-sync benchmarks (sync-first.ts in Node, sync-browser.ts in
 * Chromium): `rows` small memory documents written straight to the server, each with a dense
 * unit vector of the given model (every component non-zero, as a real model's), so a device on
 * that model pulls them without embedding anything.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { toBase64 } from '../src/core/sync/base64.ts';
import { request } from '../test/helpers/couch-server.ts';

/** A dense unit vector determined by `seed`. */
export function denseUnit(seed: number, dim: number): Float32Array {
  const v = new Float32Array(dim);
  let h = seed * 2654435761;
  let norm = 0;
  for (let j = 0; j < dim; j++) {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) ^ Math.imul(h ^ (h >>> 12), 0x297a2d39);
    v[j] = ((h >>> 0) / 4294967296) * 2 - 1;
    norm += v[j]! * v[j]!;
  }
  for (let j = 0; j < dim; j++) v[j]! /= Math.sqrt(norm);
  return v;
}

/** Writes `rows` documents `m:<prefix>-<n>` (~40 characters of text each), 2,000 a request. */
export async function seedMemoryDocs(url: string, auth: { username: string; password: string }, rows: number, vector: { model: string; dim: number }, prefix: string): Promise<void> {
  for (let i = 0; i < rows; i += 2000) {
    const docs = Array.from({ length: Math.min(2000, rows - i) }, (_, k) => {
      const n = i + k;
      return {
        _id: `m:${prefix}-${n}`,
        kind: 'houkai-memory',
        v: 1,
        memory: { id: `${prefix}-${n}`, text: `small memory ${n} about topic ${n % 97}`, type: 'semantic', tags: [], importance: 0.5, createdAt: 1_760_000_000 + n, source: null, links: [] },
        vector: { model: vector.model, dim: vector.dim, f32: toBase64(new Uint8Array(denseUnit(n + 1, vector.dim).buffer)) },
      };
    });
    const r = await request(`${url}/_bulk_docs`, 'POST', { docs }, auth);
    if (r.status !== 201) throw new Error(`seeding failed: ${r.status}`);
  }
}

/**
 * Seeds in a child process, so that the process a benchmark measures holds none of the seeding's
 * documents or garbage (a real device syncs from a server that someone else filled).
 */
export async function seedInChild(url: string, auth: { username: string; password: string }, rows: number, vector: { model: string; dim: number }, prefix: string): Promise<void> {
  const args = [...process.execArgv, fileURLToPath(import.meta.url), JSON.stringify({ url, auth, rows, vector, prefix })];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('exit', resolve);
  });
  if (code !== 0) throw new Error(`seeding exited with ${code}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { url, auth, rows, vector, prefix } = JSON.parse(process.argv[2]!) as { url: string; auth: { username: string; password: string }; rows: number; vector: { model: string; dim: number }; prefix: string };
  await seedMemoryDocs(url, auth, rows, vector, prefix);
}
