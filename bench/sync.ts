/**
 * Sync benchmark (issues #18, #31): two stores (two IndexedDB databases in Node) and
 * pouchdb-server on loopback, started here. Every byte between the replicas and the server goes
 * through a counting TCP relay, so "bytes per memory on the wire" is what crossed the socket
 * (HTTP headers included).
 *
 *   npm run bench -- --sync [--rows 10000] [--live 30]
 *
 * Runs the same measurement twice in one process, plain and end-to-end encrypted (a passphrase),
 * each against a database of its own: the first sync of `rows` memories with 384-d vectors
 * (device A sends, device B receives; both rounds timed, with the process's CPU time), then live
 * mode: a memory written on A until B holds it, `live` times. Then the crypto alone: sealing and
 * opening `rows` documents' content (what a round adds per memory) and the PBKDF2 derivation.
 * Prints a JSON line and a table.
 */
import 'fake-indexeddb/auto';
import { createServer, connect, type Socket } from 'node:net';
import { createMemory, type LocalMemory } from '../src/local.ts';
import type { Embedder } from '../src/core/ports.ts';
import { startCouchServer } from '../test/helpers/couch-server.ts';
import { newEntry, seal, unseal } from '../src/core/sync/crypto.ts';
import { toDocument } from '../src/core/sync/document.ts';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const ROWS = opt('rows', 10_000);
const LIVE = opt('live', 30);
const DIM = 384;
const auth = { username: 'bench', password: 'bench-pw' };

/** A TCP relay to `port` that counts the bytes each way. */
async function relay(port: number): Promise<{ port: number; bytes: () => { up: number; down: number }; reset(): void; close(): void }> {
  let up = 0;
  let down = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (d) => void (up += d.length));
    upstream.on('data', (d) => void (down += d.length));
    client.pipe(upstream).pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    bytes: () => ({ up, down }),
    reset: () => void ((up = 0), (down = 0)),
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/**
 * Dense unit vectors seeded by the text (as a real model's are: every component non-zero, so the
 * wire carries what MiniLM's would; a sparse test embedder would compress to nothing).
 */
const denseEmbedder: Embedder = {
  id: 'bench-dense-384',
  dim: DIM,
  async embed(texts) {
    return texts.map((text) => {
      let h = 2166136261;
      for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
      const v = new Float32Array(DIM);
      let norm = 0;
      for (let j = 0; j < DIM; j++) {
        h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) ^ Math.imul(h ^ (h >>> 12), 0x297a2d39);
        v[j] = ((h >>> 0) / 4294967296) * 2 - 1;
        norm += v[j]! * v[j]!;
      }
      const inv = 1 / Math.sqrt(norm);
      for (let j = 0; j < DIM; j++) v[j]! *= inv;
      return v;
    });
  },
};

const open = (name: string): Promise<LocalMemory> => createMemory({ name: `${name}-${process.pid}-${Date.now()}`, embedder: denseEmbedder, index: 'hnsw-i8' });

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango'.split(' ');
const texts = Array.from({ length: ROWS }, (_, i) => `memory ${i}: ${[0, 1, 2, 3, 4, 5, 6, 7].map((k) => words[(i * 7 + k * 13 + k * k) % words.length]).join(' ')} — note ${i % 97}`);
const PASSPHRASE = 'bench passphrase, long enough';

interface RunFigures {
  pushMs: number;
  pullMs: number;
  totalMs: number;
  pushCpuMs: number;
  pullCpuMs: number;
  bytesPerMemoryPush: number;
  bytesPerMemoryPull: number;
  live: { writes: number; p50Ms: number; p90Ms: number; maxMs: number };
}

async function measure(server: Awaited<ReturnType<typeof startCouchServer>>, wire: Awaited<ReturnType<typeof relay>>, mode: 'plain' | 'encrypted'): Promise<RunFigures> {
  const direct = await server.userDatabase(`bench-${mode}`, [auth]);
  const url = direct.replace(`:${server.port}/`, `:${wire.port}/`);
  const options = { url, auth, ...(mode === 'encrypted' ? { encryption: { passphrase: PASSPHRASE } } : {}) };
  const a = await open(`sync-a-${mode}`);
  const b = await open(`sync-b-${mode}`);
  for (let i = 0; i < texts.length; i += 1000) await a.rememberMany(texts.slice(i, i + 1000), { batchSize: 500 });

  wire.reset();
  let t = performance.now();
  let cpu = process.cpuUsage();
  const sent = await a.sync(options);
  const pushMs = performance.now() - t;
  const pushCpuMs = cpuMs(cpu);
  const pushBytes = wire.bytes();
  wire.reset();
  t = performance.now();
  cpu = process.cpuUsage();
  const received = await b.sync(options);
  const pullMs = performance.now() - t;
  const pullCpuMs = cpuMs(cpu);
  const pullBytes = wire.bytes();
  if (sent.pushed !== ROWS || received.applied !== ROWS || (await b.count()) !== ROWS) throw new Error(`${mode}: first sync incomplete: pushed ${sent.pushed}, applied ${received.applied}, B holds ${await b.count()}`);

  // Live: both sides live; a write on A until B holds it.
  await a.sync({ ...options, live: true });
  await b.sync({ ...options, live: true });
  const latencies: number[] = [];
  for (let i = 0; i < LIVE; i++) {
    const start = performance.now();
    const { memory } = await a.remember(`live write ${i} (${mode}): ${words[i % words.length]} ${words[(i * 3) % words.length]}`);
    const deadline = start + 15_000;
    while (!(await b.get(memory.id)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    if (!(await b.get(memory.id))) throw new Error(`${mode}: live write ${i} did not arrive within 15 s`);
    latencies.push(performance.now() - start);
    await new Promise((r) => setTimeout(r, 100 + ((i * 37) % 200)));
  }
  await a.stopSync();
  await b.stopSync();
  await a.close();
  await b.close();
  return {
    pushMs: Math.round(pushMs),
    pullMs: Math.round(pullMs),
    totalMs: Math.round(pushMs + pullMs),
    pushCpuMs: Math.round(pushCpuMs),
    pullCpuMs: Math.round(pullCpuMs),
    bytesPerMemoryPush: Math.round((pushBytes.up + pushBytes.down) / ROWS),
    bytesPerMemoryPull: Math.round((pullBytes.up + pullBytes.down) / ROWS),
    live: { writes: LIVE, p50Ms: Math.round(pct(latencies, 50)), p90Ms: Math.round(pct(latencies, 90)), maxMs: Math.round(Math.max(...latencies)) },
  };
}

/** The crypto alone: one key derivation, and sealing then opening `ROWS` documents' content as a round does. */
async function cryptoCost(): Promise<{ deriveMs: number; sealMsPerMemory: number; openMsPerMemory: number; sealCpuMsPerMemory: number }> {
  let t = performance.now();
  const { key } = await newEntry({ passphrase: PASSPHRASE });
  const deriveMs = performance.now() - t;
  const [vector] = await denseEmbedder.embed([texts[0]!]);
  const contents = texts.map((text, i) => {
    const doc = toDocument({ id: `m-${i}`, text, type: 'semantic', tags: ['bench'], importance: 0.5, createdAt: 1_790_000_000 + i, lastAccessed: 0, accessCount: 0, source: null, links: [], supersededBy: '', supersededAt: 0, polarity: 0, expiresAt: 0, pinned: false, trust: 'trusted', contentHash: '', validFrom: 0, validUntil: 0, surfacesWhen: [] }, vector!, denseEmbedder.id);
    const { _id, _rev, ...content } = doc as unknown as Record<string, unknown>;
    return { id: String(_id), content };
  });
  const cpu = process.cpuUsage();
  t = performance.now();
  const sealed = await Promise.all(contents.map((c) => seal(key, c.id, c.content)));
  const sealMs = performance.now() - t;
  const sealCpu = cpuMs(cpu);
  t = performance.now();
  await Promise.all(sealed.map((s, i) => unseal(key.key, contents[i]!.id, s)));
  const openMs = performance.now() - t;
  return { deriveMs: Math.round(deriveMs), sealMsPerMemory: sealMs / ROWS, openMsPerMemory: openMs / ROWS, sealCpuMsPerMemory: sealCpu / ROWS };
}

const server = await startCouchServer();
const wire = await relay(server.port);
try {
  const plain = await measure(server, wire, 'plain');
  const encrypted = await measure(server, wire, 'encrypted');
  const crypto = await cryptoCost();
  const result = { date: new Date().toISOString(), rows: ROWS, dim: DIM, plain, encrypted, crypto };
  console.log(JSON.stringify(result));
  const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  console.log(`\n| ${ROWS.toLocaleString()} memories | A → server | server → B | first sync total | CPU time A / B | wire bytes a memory: send / receive | live p50 / p90 / max (${LIVE} writes) |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [name, f] of [['plain', plain], ['encrypted', encrypted]] as const) {
    console.log(`| ${name} | ${s(f.pushMs)} | ${s(f.pullMs)} | ${s(f.totalMs)} | ${s(f.pushCpuMs)} / ${s(f.pullCpuMs)} | ${f.bytesPerMemoryPush.toLocaleString()} / ${f.bytesPerMemoryPull.toLocaleString()} | ${f.live.p50Ms} / ${f.live.p90Ms} / ${f.live.maxMs} ms |`);
  }
  console.log(`\nCrypto alone: PBKDF2-SHA-256 (600,000 iterations) ${crypto.deriveMs} ms once; AES-GCM seal ${crypto.sealMsPerMemory.toFixed(3)} ms a memory (CPU ${crypto.sealCpuMsPerMemory.toFixed(3)} ms), open ${crypto.openMsPerMemory.toFixed(3)} ms a memory.`);
} finally {
  wire.close();
  await server.dispose();
}
