// The bench page: connects to e2e/bench.worker.ts (a module SharedWorker) through the product
// client and exposes `window.bench` to bench/browser.ts. The measurement loops run here, on the
// page, so each timing covers exactly the awaited client call (comlink round trip included)
// and nothing of the Node ↔ browser protocol.
//
// `?cold=<store>` makes the page connect and recall as soon as this script runs (no waiting
// for Node to ask), for the cold-start measurement; the outcome lands in `window.bench.cold`.
import * as Comlink from 'comlink';
import { connectMemory, type ConnectOptions, type MemoryClient } from '../src/index.ts';
import type { BenchHostApi, BenchInfo, EmbedProbe, IndexBenchResult, Isolation, OpenProbe, RecallProbe, WorkerMemory } from './bench.worker.ts';
import type { PhaseTotal } from './profiling.ts';

export interface ColdStartResult {
  /** performance.now() (ms since navigation start) when this script began. */
  scriptStartMs: number;
  /** performance.now() when the first recall resolved. */
  firstRecallMs: number;
  /** connect() → store open (in-page). */
  connectMs: number;
  /** connect() → first recall resolved (in-page). */
  inPageMs: number;
  /** Epoch ms when the first recall resolved. */
  firstRecallEpochMs: number;
  hits: number;
  snapshotGeneration: number | null;
  generation: number;
  indexSize: number;
  count: number;
  info: BenchInfo;
  /** When profiled (`&profile=1`): the worker's totals from connect to the first recall's result. */
  profile?: Record<string, PhaseTotal>;
  error?: string;
}

export interface BenchApi {
  connect(options?: ConnectOptions): Promise<MemoryClient>;
  /** Connects a named store and keeps the client for the helpers below. */
  open(name: string, options?: Omit<ConnectOptions, 'name' | 'worker' | 'endpoint'>): Promise<{ ms: number; embedder: { id: string; dim: number }; backend: string | undefined }>;
  /** rememberMany of `m:<from>` … `m:<to - 1>`, `batch` items per call; returns elapsed ms. */
  ingest(name: string, from: number, to: number, batch: number): Promise<number>;
  /** rememberMany of the given texts, `batch` items per call; returns elapsed ms. */
  rememberTexts(name: string, texts: string[], batch: number): Promise<number>;
  flush(name: string): Promise<number>;
  /** `count` timed recalls `recall('q:<j>', { k, touch: false })` after `warmup` untimed ones; ms per call. */
  recallLatency(name: string, count: number, warmup: number, k: number, queryOffset: number): Promise<{ samples: number[]; minHits: number }>;
  stats(name: string): Promise<Awaited<ReturnType<MemoryClient['stats']>>>;
  close(name: string): Promise<void>;
  /** What the worker reports about itself, over a connection of its own. */
  info(): Promise<BenchInfo>;
  /** Where a recall's time goes, measured inside the worker (the store must be open). */
  probe(name: string, runs: number, k: number): Promise<RecallProbe>;
  /** The texts of the top `k` hits of each query (untimed; recall@10 is computed in Node). */
  recallHits(name: string, queries: string[], k: number): Promise<string[][]>;
  /** The int8 index alone: `n` corpus vectors in, a snapshot, timed searches (bench/million.ts --index-only). */
  indexBench(name: string, n: number, queries: string[], k: number): Promise<IndexBenchResult>;
  /** With `?indexOpen=<name>`: the page asks the (fresh) worker to load that index and search once, at once. */
  indexCold?: Promise<{ loadMs: number; firstSearchMs: number; size: number; workerStartedAt: number; firstSearchEpochMs: number; memory: WorkerMemory }>;
  /** The worker's JS heap and index memory. */
  workerMemory(): Promise<WorkerMemory>;
  /**
   * Profiling on or off for the stores the worker opens from now on (e2e/profiling.ts); with
   * `storage: 'opfs'`, in the page's OPFS worker (started here when it has not been yet).
   */
  setProfiling(on: boolean, storage?: 'opfs'): Promise<void>;
  /** The profile's totals since the last call. */
  profile(): Promise<Record<string, PhaseTotal>>;
  /** The steps of opening `name` from its snapshot, timed one by one (needs a fresh worker). */
  probeOpen(name: string): Promise<{ probe: OpenProbe; info: BenchInfo }>;
  cold?: Promise<ColdStartResult>;
  /**
   * Real-model embedding in a bench worker, loaded as the memory worker loads models: in the
   * shared worker, or (`dedicated`) in a dedicated Worker started for this call.
   */
  embed(model: string, texts: string[], options?: { input?: 'query' | 'passage'; dedicated?: boolean; threads?: number; batchSize?: number }): Promise<EmbedProbe & { isolation: Isolation }>;
}

declare global {
  interface Window {
    bench: BenchApi;
  }
}

const status = document.getElementById('status')!;
const scriptStartMs = performance.now();
const WORKER_NAME = 'houkai-bench';

function startWorker(): Worker | SharedWorker {
  if (typeof SharedWorker !== 'undefined') {
    return new SharedWorker(new URL('./bench.worker.ts', import.meta.url), { type: 'module', name: WORKER_NAME });
  }
  return new Worker(new URL('./bench.worker.ts', import.meta.url), { type: 'module', name: WORKER_NAME });
}

let lastDedicated: Worker | undefined;
const clients = new Map<string, MemoryClient>();

/** The page's one dedicated worker for stores on OPFS (the pool is one worker's at a time). */
let opfsWorker: Worker | undefined;

/** The page's OPFS worker, started on first use. */
function opfsEndpoint(): Worker {
  opfsWorker ??= new Worker(new URL('./bench.worker.ts', import.meta.url), { type: 'module', name: 'houkai-bench-opfs' });
  lastDedicated = opfsWorker;
  return opfsWorker;
}

function connect(options: ConnectOptions = {}): Promise<MemoryClient> {
  if (options.storage === 'opfs') return connectMemory({ ...options, endpoint: opfsEndpoint() });
  return connectMemory({
    ...options,
    worker: () => {
      const started = startWorker();
      if (!(typeof SharedWorker !== 'undefined' && started instanceof SharedWorker)) lastDedicated = started as Worker;
      return started;
    },
  });
}

function client(name: string): MemoryClient {
  const found = clients.get(name);
  if (!found) throw new Error(`bench: store "${name}" is not open on this page`);
  return found;
}

/** Runs `task` against the worker's bench API over a connection of its own. */
async function withWorker<T>(task: (remote: Comlink.Remote<BenchHostApi>) => Promise<T>): Promise<T> {
  if (typeof SharedWorker === 'undefined' || opfsWorker) {
    if (!lastDedicated) throw new Error('bench: no worker started yet');
    return task(Comlink.wrap<BenchHostApi>(lastDedicated));
  }
  const worker = new SharedWorker(new URL('./bench.worker.ts', import.meta.url), { type: 'module', name: WORKER_NAME });
  worker.port.start();
  const remote = Comlink.wrap<BenchHostApi>(worker.port);
  try {
    return await task(remote);
  } finally {
    remote[Comlink.releaseProxy]();
    worker.port.close();
  }
}

const info = (): Promise<BenchInfo> => withWorker((remote) => remote.benchInfo());

async function coldStart(name: string, index?: 'hnsw' | 'hnsw-i8' | 'exact', profiled = false, storage?: 'opfs'): Promise<ColdStartResult> {
  if (profiled) await window.bench.setProfiling(true, storage);
  const t0 = performance.now();
  const memory = await connect({ name, ...(index ? { index } : {}), ...(storage ? { storage } : {}) });
  const tConnected = performance.now();
  const hits = await memory.recall('q:1000000', { k: 10, touch: false, mode: 'semantic' });
  const tEnd = performance.now();
  // Everything below is after the measurement.
  const profile = profiled ? await window.bench.profile() : undefined;
  const stats = await memory.stats();
  clients.set(name, memory);
  return {
    scriptStartMs,
    firstRecallMs: tEnd,
    connectMs: tConnected - t0,
    inPageMs: tEnd - t0,
    firstRecallEpochMs: performance.timeOrigin + tEnd,
    hits: hits.length,
    snapshotGeneration: stats.index.snapshotGeneration,
    generation: stats.index.generation,
    indexSize: stats.index.size,
    count: stats.count,
    info: await info(),
    ...(profile ? { profile } : {}),
  };
}

async function embedIn(model: string, texts: string[], options: { input?: 'query' | 'passage'; dedicated?: boolean; threads?: number; batchSize?: number } = {}): Promise<EmbedProbe & { isolation: Isolation }> {
  const { dedicated, ...rest } = options;
  const run = async (remote: Comlink.Remote<BenchHostApi>) => ({ ...(await remote.embedProbe(model, texts, rest)), isolation: await remote.isolation() });
  if (!dedicated) return withWorker(run);
  const worker = new Worker(new URL('./bench.worker.ts', import.meta.url), { type: 'module', name: 'houkai-bench-dedicated' });
  const remote = Comlink.wrap<BenchHostApi>(worker);
  try {
    return await run(remote);
  } finally {
    remote[Comlink.releaseProxy]();
    worker.terminate();
  }
}

window.bench = {
  connect,
  embed: embedIn,
  async open(name, options = {}) {
    const t0 = performance.now();
    const memory = await connect({ ...options, name });
    const ms = performance.now() - t0;
    clients.get(name)?.close().catch(() => undefined);
    clients.set(name, memory);
    return { ms, embedder: memory.embedder, backend: memory.backend };
  },
  async ingest(name, from, to, batch) {
    const memory = client(name);
    const t0 = performance.now();
    for (let start = from; start < to; start += batch) {
      const end = Math.min(to, start + batch);
      const items: string[] = [];
      for (let i = start; i < end; i++) items.push(`m:${i}`);
      await memory.rememberMany(items);
    }
    return performance.now() - t0;
  },
  async rememberTexts(name, texts, batch) {
    const memory = client(name);
    const t0 = performance.now();
    for (let start = 0; start < texts.length; start += batch) await memory.rememberMany(texts.slice(start, start + batch));
    return performance.now() - t0;
  },
  async flush(name) {
    const t0 = performance.now();
    await client(name).flush();
    return performance.now() - t0;
  },
  async recallLatency(name, count, warmup, k, queryOffset) {
    const memory = client(name);
    let minHits = Infinity;
    for (let j = 0; j < warmup; j++) await memory.recall(`q:${queryOffset + count + j}`, { k, touch: false, mode: 'semantic' });
    const samples: number[] = [];
    for (let j = 0; j < count; j++) {
      const query = `q:${queryOffset + j}`;
      const t0 = performance.now();
      const hits = await memory.recall(query, { k, touch: false, mode: 'semantic' });
      samples.push(performance.now() - t0);
      minHits = Math.min(minHits, hits.length);
    }
    return { samples, minHits };
  },
  stats: (name) => client(name).stats(),
  async close(name) {
    const memory = clients.get(name);
    clients.delete(name);
    await memory?.close();
  },
  async recallHits(name, queries, k) {
    const memory = client(name);
    const out: string[][] = [];
    for (const query of queries) out.push((await memory.recall(query, { k, touch: false, mode: 'semantic' })).map((h) => h.memory.text));
    return out;
  },
  workerMemory: () => withWorker((remote) => remote.memoryInfo()),
  setProfiling: (on, storage) => {
    if (storage === 'opfs') opfsEndpoint();
    return withWorker((remote) => remote.setProfiling(on));
  },
  profile: () => withWorker((remote) => remote.profile()),
  indexBench: (name, n, queries, k) => withWorker((remote) => remote.indexBench(name, n, queries, k)),
  info,
  probe: (name, runs, k) => withWorker((remote) => remote.probeRecall(name, runs, k)),
  probeOpen: (name) => withWorker(async (remote) => ({ probe: await remote.probeOpen(name), info: await remote.benchInfo() })),
};

const indexOpenName = new URLSearchParams(location.search).get('indexOpen');
if (indexOpenName) {
  // No client connect: straight to the worker, which loads the index and searches once.
  const worker = new SharedWorker(new URL('./bench.worker.ts', import.meta.url), { type: 'module', name: WORKER_NAME });
  worker.port.start();
  const remote = Comlink.wrap<BenchHostApi>(worker.port);
  window.bench.indexCold = remote.indexOpen(indexOpenName, 'q:1000000', 10).then((r) => ({ ...r, firstSearchEpochMs: performance.timeOrigin + performance.now() }));
}

const coldStore = new URLSearchParams(location.search).get('cold');
const coldIndex = (new URLSearchParams(location.search).get('index') ?? undefined) as 'hnsw' | 'hnsw-i8' | 'exact' | undefined;
if (coldStore) {
  status.textContent = `cold start: ${coldStore}…`;
  // Profiled: switched on over a connection of its own first (which starts the worker a little
  // earlier); the bench's plain cold runs stay as they were.
  const coldStorage = new URLSearchParams(location.search).get('storage') === 'opfs' ? 'opfs' : undefined;
  window.bench.cold = coldStart(coldStore, coldIndex, new URLSearchParams(location.search).has('profile'), coldStorage).then(
    (result) => {
      status.textContent = `cold start: ${Math.round(result.inPageMs)} ms`;
      return result;
    },
    (error: unknown) => {
      status.textContent = `cold start failed: ${String(error)}`;
      throw error;
    },
  );
} else {
  status.textContent = 'ready';
}
