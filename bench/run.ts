/**
 * `npm run bench`: index, embedding and ingestion figures for this machine, printed as a table
 * with one JSON object as the last line (compare it across commits). Node 20 with
 * fake-indexeddb stands in for the browser's IndexedDB here; `bench/browser.ts` measures the
 * same store through the worker in headless Chromium and is merged under "browser".
 *
 * Usage: npm run bench [-- --sizes 1000,10000,100000] [-- --skip-browser] [-- --index-only] [-- --models-only] [-- --texts sentences|real]
 *        npm run bench -- --million [--runs hnsw:100000,hnsw-i8:100000,hnsw-i8:1000000] [--storage dexie|opfs]   (bench/million.ts)
 *        npm run bench -- --compare [--sizes 100000]                                    (bench/index-compare.ts)
 *        npm run bench -- --sync [--rows 10000] [--live 30]                             (bench/sync.ts)
 *        npm run bench -- --sync-browser [--rows 50000]                                 (bench/sync-browser.ts)
 *        npm run bench -- --sync-first [--rows 50000]                                   (bench/sync-first.ts)
 *        npm run bench -- --chats [--messages 5000] [--embedders seeded,bge-small]      (bench/chats.ts)
 */
import 'fake-indexeddb/auto';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { createExactIndex } from '../src/adapters/index-exact.ts';
import { EVAL_EMBEDDERS, MODELS_DIR, evalEmbedder, type EvalEmbedderKey } from './eval-embedders.ts';
import { benchBrowserModels } from './browser-models.ts';
import type { Embedder } from '../src/core/ports.ts';
import { createMemory, type LocalMemory } from '../src/local.ts';
import { gaussian, makeClusteredVectors, mulberry32, perturb } from '../test/helpers/prng.ts';
import { sentences } from './sentences.ts';
import { realTexts } from './real-texts.ts';
import { resolveDataDir } from './datasets.ts';
import path from 'node:path';

const args = process.argv.slice(2);
// The long runs live in scripts of their own; `--million` and `--compare` hand over to them.
for (const [option, script] of [['--million', 'bench/million.ts'], ['--compare', 'bench/index-compare.ts'], ['--sync', 'bench/sync.ts'], ['--sync-browser', 'bench/sync-browser.ts'], ['--sync-first', 'bench/sync-first.ts'], ['--node-store', 'bench/node-store.ts'], ['--chats', 'bench/chats.ts']] as const) {
  if (args.includes(option)) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', script, ...args.filter((a) => a !== option)], { stdio: 'inherit' });
    process.exit(child.status ?? 1);
  }
}
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const SIZES = (flag('sizes') ?? '1000,10000,100000').split(',').map(Number);
const SKIP_BROWSER = args.includes('--skip-browser') || args.includes('--index-only');
/** Only the index and retrieval figures (no embedding, archive, graph or browser runs): for quick comparisons. */
const INDEX_ONLY = args.includes('--index-only');
/** Only the embedding models' figures, in Node and in Chromium (no index, archive, graph or 100k browser runs). */
const MODELS_ONLY = args.includes('--models-only');
const DIM = 384;
const QUERIES = 300;
/**
 * `--texts real`: the memories' texts are real sentences (bench/real-texts.ts: SciFact, STS-B,
 * SICK, LoCoMo; a real vocabulary) instead of bench/sentences.ts's recombined phrases; the
 * vectors stay synthetic either way (no model in the timings).
 */
const TEXTS = flag('texts') ?? 'sentences';
if (TEXTS !== 'sentences' && TEXTS !== 'real') throw new Error('--texts sentences|real');

function benchTexts(n: number): { texts: string[]; queryTexts: string[] } {
  if (TEXTS === 'sentences') return { texts: sentences(n, 7), queryTexts: sentences(QUERIES, 8).map((t, j) => `${t} [query ${j}]`) };
  const real = realTexts(resolveDataDir(path.resolve(import.meta.dirname, '..')), n, QUERIES);
  if (real.texts.length < n) throw new Error(`--texts real holds ${real.texts.length} texts, fewer than ${n}`);
  return { texts: real.texts, queryTexts: real.queries };
}

const log = (line: string): void => void process.stderr.write(`${line}\n`);
const ms = (t0: number): number => performance.now() - t0;
const round = (x: number, digits = 3): number => Number(x.toFixed(digits));

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * Memories and queries are agent-like sentences (so the lexical index and hybrid scoring see
 * real text) mapped to precomputed vectors, so recall timing excludes any model.
 */
function tableEmbedder(table: Map<string, Float32Array>): Embedder {
  return {
    id: 'bench-table-384',
    dim: DIM,
    async embed(texts) {
      return texts.map((t) => {
        const v = table.get(t);
        if (!v) throw new Error(`no vector for ${t}`);
        return v;
      });
    },
  };
}

/**
 * The corpus and its queries come from one clustered distribution (one centroid per ~1,000
 * memories): half the queries are unseen points from it, half near-copies of stored ones.
 */
function makeCorpus(n: number): { data: Float32Array[]; queries: Float32Array[] } {
  const all = makeClusteredVectors(n + QUERIES, DIM, 42, Math.max(20, Math.round(n / 1000)));
  const data = all.slice(0, n);
  const random = mulberry32(99);
  const normal = gaussian(random);
  const queries = all.slice(n).map((fresh, j) =>
    j % 2 === 0 ? fresh : perturb(data[Math.floor(random() * n)]!, 0.02 / Math.sqrt(DIM), normal),
  );
  return { data, queries };
}

async function snapshotBytes(name: string): Promise<number> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const r = indexedDB.open('houkai-hnsw-snapshots');
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
  try {
    if (!db.objectStoreNames.contains('snapshots')) return 0;
    const records = await new Promise<{ byteLength?: number }[]>((resolve, reject) => {
      const req = db.transaction('snapshots').objectStore('snapshots').getAll();
      req.onsuccess = () => resolve(req.result as { byteLength?: number }[]);
      req.onerror = () => reject(req.error);
    });
    const match = records.filter((r) => JSON.stringify(r).includes(name.replace(/[^a-zA-Z0-9_-]/g, '_')));
    return (match.length ? match : records).reduce((sum, r) => Math.max(sum, r.byteLength ?? 0), 0);
  } finally {
    db.close();
  }
}

async function benchIndex(n: number, retrievalFigures = false): Promise<{ figures: Record<string, number>; retrieval: Record<string, number> | null }> {
  const name = `bench-${n}-${Date.now()}`;
  const t0 = performance.now();
  const { data, queries } = makeCorpus(n);
  const { texts, queryTexts } = benchTexts(n);
  const table = new Map<string, Float32Array>();
  texts.forEach((t, i) => table.set(t, data[i]!));
  queryTexts.forEach((t, j) => table.set(t, queries[j]!));
  const embedder = tableEmbedder(table);
  log(`  n=${n}: vectors ready in ${(ms(t0) / 1000).toFixed(1)} s`);

  const open = (): Promise<LocalMemory> => createMemory({ name, embedder, index: 'hnsw', snapshotDelayMs: 3_600_000 });
  let store = await open();
  const tIngest = performance.now();
  const labelOf = new Map<string, number>();
  for (let start = 0; start < n; start += 2000) {
    const items = texts.slice(start, start + 2000).map((text) => ({ text }));
    const stored = await store.rememberMany(items, { batchSize: 2000 });
    stored.forEach((r, i) => labelOf.set(r.memory.id, start + i));
  }
  const ingestS = ms(tIngest) / 1000;
  await store.flush();
  log(`  n=${n}: ingested (Dexie + HNSW insert) in ${ingestS.toFixed(1)} s`);

  // Exact baseline over the same vectors, in the same run.
  const exact = createExactIndex({ dim: DIM, capacity: n });
  exact.add(data.map((_, i) => i), data);
  const exactTimes: number[] = [];
  const truth: number[][] = [];
  for (const q of queries) {
    const t = performance.now();
    truth.push(exact.search(q, 10).map((h) => h.label));
    exactTimes.push(ms(t));
  }

  // The index's figures are semantic recall's (the default is hybrid since issue #26: timed apart below).
  for (let j = 0; j < 20; j++) await store.recall(queryTexts[j]!, { k: 10, touch: false, mode: 'semantic' });
  const times: number[] = [];
  let found = 0;
  for (let j = 0; j < QUERIES; j++) {
    const t = performance.now();
    const hits = await store.recall(queryTexts[j]!, { k: 10, touch: false, mode: 'semantic' });
    times.push(ms(t));
    const want = new Set(truth[j]);
    found += hits.filter((h) => want.has(labelOf.get(h.memory.id)!)).length;
  }
  const retrieval = retrievalFigures ? await benchRetrieval(store, queryTexts, table, percentile(times, 50)) : null;
  // Recall with its touch (the default): the touch is written behind the answer and the next call
  // waits for it, so a recall is timed alone (a pause after each, as an agent reads the answer)
  // and back to back (each waiting for the touch before it).
  const touchTimes: number[] = [];
  const backToBack: number[] = [];
  for (let j = 0; j < 100; j++) {
    const t = performance.now();
    await store.recall(queryTexts[j]!, { k: 10, mode: 'semantic' });
    touchTimes.push(ms(t));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (let j = 0; j < 100; j++) {
    const t = performance.now();
    await store.recall(queryTexts[j]!, { k: 10, mode: 'semantic' });
    backToBack.push(ms(t));
  }
  await store.close();

  // Reopen: open the store (snapshot load + validation) and answer the first recall.
  const tReopen = performance.now();
  store = await open();
  await store.recall(queryTexts[0]!, { k: 10, touch: false, mode: 'semantic' });
  const reopenMs = ms(tReopen);
  const reopenedFrom = store.opened;
  await store.close();

  // Build: the index rebuilt from the stored vectors (what a missing or corrupt snapshot costs).
  const { dropHnswSnapshot } = await import('../src/adapters/index-hnsw.ts');
  const snapBytes = await snapshotBytes(name);
  await dropHnswSnapshot(name);
  const tBuild = performance.now();
  store = await open();
  const buildS = ms(tBuild) / 1000;
  const rebuiltFrom = store.opened;
  const sample = await store.listRecent({ limit: 200 });
  await store.close();
  const rowBytes = sample.reduce((s, m) => s + JSON.stringify(m).length, 0) / Math.max(1, sample.length);
  exact.dispose();

  const result = {
    recall_p50_ms: round(percentile(times, 50)),
    recall_p99_ms: round(percentile(times, 99)),
    recall_at_10: round(found / (QUERIES * 10), 4),
    exact_p50_ms: round(percentile(exactTimes, 50)),
    build_s: round(buildS, 2),
    reopen_ms: round(reopenMs, 1),
    // An estimate in Node (the row as JSON, the vector as stored: binary16 since schema v11, the
    // index snapshot); the browser's bytes on disk are bench/million.ts's `disk_bytes_per_memory`.
    bytes_per_memory: Math.round(rowBytes + DIM * 2 + snapBytes / n),
    recall_touch_p50_ms: round(percentile(touchTimes, 50)),
    recall_touch_back_to_back_p50_ms: round(percentile(backToBack, 50)),
    ingest_per_s: Math.round(n / ingestS),
  };
  log(`  n=${n}: ${JSON.stringify(result)} (reopened from ${reopenedFrom}, build path ${rebuiltFrom})`);
  if (reopenedFrom !== 'snapshot' || rebuiltFrom !== 'rebuilt') throw new Error(`unexpected open paths ${reopenedFrom}/${rebuiltFrom}`);
  return { figures: result, retrieval };
}

/**
 * Issue 4's performance figures on the largest store: hybrid recall (overfetch 4; pool and
 * corpus lexical sources) and the default recall against semantic recall, the four timed
 * interleaved in the same run (since #26 session 7; one after the other before), and what the
 * persistent lexical index adds to one remember (a real sentence against a one-token text,
 * interleaved, same vectors: the difference is tokenising plus the multi-entry index writes).
 */
async function benchRetrieval(store: LocalMemory, queryTexts: string[], table: Map<string, Float32Array>, semanticP50: number): Promise<Record<string, number>> {
  // The configurations are timed interleaved, a query of each in turn (which goes first rotates,
  // and each takes the queries in its own order, so none follows another on the same query): one
  // after the other, the same configuration read 1.2 ms apart by its place in the run (BENCHMARKS,
  // #26 session 7), and the machine's drift fell on whichever ran last.
  const configs: Record<string, unknown>[] = [
    { mode: 'semantic' },
    { mode: 'hybrid', overfetch: 4, lexicalIndex: 'pool' },
    { mode: 'hybrid', overfetch: 4, lexicalIndex: 'corpus' },
    // The default recall (issue #26: hybrid, corpus candidates, the conversational signals).
    {},
  ];
  const queryOf = (c: number, j: number): string => queryTexts[(j + c * 97) % QUERIES]!;
  for (let j = 0; j < 20; j++) for (const [c, options] of configs.entries()) await store.recall(queryOf(c, j), { k: 10, touch: false, ...options });
  const samples: number[][] = configs.map(() => []);
  for (let j = 0; j < QUERIES; j++) {
    for (let step = 0; step < configs.length; step++) {
      const c = (j + step) % configs.length;
      const t = performance.now();
      await store.recall(queryOf(c, j), { k: 10, touch: false, ...configs[c]! });
      samples[c]!.push(ms(t));
    }
  }
  const [semantic, hybrid, corpus, byDefault] = samples as [number[], number[], number[], number[]];

  const extra = sentences(400, 9).map((t) => `${t} [extra]`);
  const sentenceTimes: number[] = [];
  const tokenTimes: number[] = [];
  const ids: string[] = [];
  for (let i = 0; i < extra.length; i++) {
    const vector = table.get(queryTexts[i % queryTexts.length]!)!;
    const token = `x${i.toString(36)}`;
    table.set(extra[i]!, vector);
    table.set(token, vector);
    for (const [text, into] of (i % 2 ? [[extra[i]!, sentenceTimes], [token, tokenTimes]] : [[token, tokenTimes], [extra[i]!, sentenceTimes]]) as [string, number[]][]) {
      const t = performance.now();
      ids.push((await store.remember(text)).memory.id);
      into.push(ms(t));
    }
  }
  for (const id of ids) await store.forget(id);
  const sentenceP50 = percentile(sentenceTimes, 50);
  const tokenP50 = percentile(tokenTimes, 50);
  return {
    semantic_p50_ms: round(semanticP50),
    hybrid_p50_ms: round(percentile(hybrid, 50)),
    hybrid_p99_ms: round(percentile(hybrid, 99)),
    hybrid_over_semantic: round(percentile(hybrid, 50) / percentile(semantic, 50), 2),
    hybrid_corpus_p50_ms: round(percentile(corpus, 50)),
    hybrid_corpus_p99_ms: round(percentile(corpus, 99)),
    hybrid_corpus_over_semantic: round(percentile(corpus, 50) / percentile(semantic, 50), 2),
    default_p50_ms: round(percentile(byDefault, 50)),
    default_p99_ms: round(percentile(byDefault, 99)),
    // Semantic recall timed interleaved with the three above (semantic_p50_ms is the index section's, timed alone).
    semantic_interleaved_p50_ms: round(percentile(semantic, 50)),
    default_over_semantic: round(percentile(byDefault, 50) / percentile(semantic, 50), 2),
    remember_sentence_p50_ms: round(sentenceP50),
    remember_one_token_p50_ms: round(tokenP50),
    lexical_index_ms_per_remember: round(Math.max(0, sentenceP50 - tokenP50)),
  };
}

interface EmbedFigures {
  /** Sentences embedded per second (8–20 words each), after a warm-up. */
  embed_per_s: number;
  /** rememberMany of 1,000 such sentences into a new store (HNSW), memories per second. */
  remember_many_per_s: number;
  /** The default `recall(q)` on that 1,000-memory store, the query's embedding included (p50 of 40). */
  recall_p50_ms: number;
  /** The query's embedding alone (p50 of the same 40). */
  query_embed_p50_ms: number;
  backend?: string;
}

/** One embedder's throughput and rememberMany rate, in this process (run one after the other, same texts). */
async function benchEmbedder(key: EvalEmbedderKey, texts: string[]): Promise<EmbedFigures> {
  const candidate = evalEmbedder(key);
  const embedder = await candidate.create();
  await embedder.embed(texts.slice(0, 64)); // warm-up: the first calls compile the graph
  const t = performance.now();
  await embedder.embed(texts.slice(0, 512));
  const perS = 512 / (ms(t) / 1000);
  const backend = embedder.backend;
  await embedder.dispose();

  const memory = await createMemory({
    name: `bench-${key}-${Date.now()}`,
    embedder: key,
    transformers: { localModelPath: MODELS_DIR },
  });
  await memory.rememberMany(texts.slice(0, 64));
  const t2 = performance.now();
  await memory.rememberMany(texts.slice(0, 1000));
  const rememberMany = 1000 / (ms(t2) / 1000);
  const queries = sentences(48, 97).map((q) => q.split(' ').slice(0, 8).join(' '));
  for (const q of queries.slice(0, 8)) await memory.recall(q); // warm-up
  const recallTimes: number[] = [];
  const embedTimes: number[] = [];
  for (const q of queries.slice(8)) {
    const t3 = performance.now();
    await memory.recall(q);
    recallTimes.push(ms(t3));
    const t4 = performance.now();
    await memory.embedder.embed([q], { input: 'query' });
    embedTimes.push(ms(t4));
  }
  await memory.close();
  return {
    embed_per_s: Math.round(perS),
    remember_many_per_s: Math.round(rememberMany),
    recall_p50_ms: round(percentile(recallTimes, 50)),
    query_embed_p50_ms: round(percentile(embedTimes, 50)),
    ...(backend ? { backend } : {}),
  };
}

async function benchEmbedding(): Promise<{ models: Partial<Record<EvalEmbedderKey, EmbedFigures>>; reference: number | null }> {
  const texts = sentences(1000, 11);
  const models: Partial<Record<EvalEmbedderKey, EmbedFigures>> = {};
  for (const key of EVAL_EMBEDDERS) {
    if (!evalEmbedder(key).available()) {
      log(`  ${key}: not provisioned (npm run models), skipped`);
      continue;
    }
    models[key] = await benchEmbedder(key, texts);
    log(`  ${key}: ${models[key]!.embed_per_s} sentences/s, rememberMany ${models[key]!.remember_many_per_s}/s, recall p50 ${models[key]!.recall_p50_ms} ms (query embedding ${models[key]!.query_embed_p50_ms} ms)${models[key]!.backend ? ` (${models[key]!.backend})` : ''}`);
  }
  // use-lite through @energetic-ai/embeddings, in its own process (it bundles its own tfjs).
  let reference: number | null = null;
  const ref = spawnSync(process.execPath, ['--import', 'tsx', 'bench/reference-embed.ts'], { encoding: 'utf8', timeout: 300_000 });
  if (ref.status === 0) reference = Number(JSON.parse(ref.stdout.trim().split('\n').pop()!).per_s);
  else log(`  reference embedder failed: ${ref.stderr.slice(0, 300)}`);
  return { models, reference };
}

function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown cpu';
  return `${os.cpus().length} × ${cpu.trim()}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

const index: Record<string, Record<string, number>> = {};
log(`houkai-web bench — ${machine()}`);
let retrieval: Record<string, number> | null = null;
for (const n of MODELS_ONLY ? [] : SIZES) {
  const largest = n === Math.max(...SIZES);
  const run = await benchIndex(n, largest);
  index[`n${n}`] = run.figures;
  if (run.retrieval) retrieval = { n, ...run.retrieval };
}
log('  embedding…');
const embed = INDEX_ONLY ? { models: {}, reference: null } : await benchEmbedding();
let browserModels: Record<string, unknown> | null = null;
if (!SKIP_BROWSER || MODELS_ONLY) {
  log('  models in Chromium…');
  try {
    browserModels = await benchBrowserModels();
  } catch (error) {
    log(`  browser models run failed: ${(error as Error).message.split('\n')[0]}`);
  }
}

log('  archives…');
let archive: Record<string, unknown> | null = null;
{
  // Throughput for 10k with vectors, then peak memory importing a ~180 MB (50k-row) archive;
  // one child each, so each peak is its own.
  const child = (extra: string[]): Record<string, unknown> | null => {
    const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/archive.ts', ...extra], { encoding: 'utf8', timeout: 900_000 });
    if (run.status === 0) return JSON.parse(run.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    log(`  archive bench ${extra.join(' ')} failed: ${run.stderr.slice(-400)}`);
    return null;
  };
  if (INDEX_ONLY || MODELS_ONLY) log('  (skipped)');
  else {
    const throughput = child(['--rows', '10000']);
    const large = child(['--memory', '--rows', '50000']);
    if (throughput || large) archive = { ...throughput, ...(large ? { large_import: large } : {}) };
  }
}

log('  graph…');
let graph: unknown = null;
{
  const run = INDEX_ONLY || MODELS_ONLY ? null : spawnSync(process.execPath, ['--import', 'tsx', 'bench/graph.ts', '--rows', '10000'], { encoding: 'utf8', timeout: 600_000 });
  if (!run) log('  (skipped)');
  else if (run.status === 0) graph = JSON.parse(run.stdout.trim().split('\n').pop()!);
  else log(`  graph bench failed: ${run.stderr.slice(-400)}`);
}

let browser: unknown = null;
if (!SKIP_BROWSER && !MODELS_ONLY) {
  const out = 'bench/.browser-result.json';
  try {
    execFileSync('npx', ['tsx', 'bench/browser.ts', out], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 25 * 60_000 });
    if (existsSync(out)) browser = JSON.parse(readFileSync(out, 'utf8'));
  } catch (error) {
    log(`  browser run failed: ${(error as Error).message.split('\n')[0]}`);
  }
}

const rows = Object.entries(index).map(
  ([k, v]) =>
    `| ${k.slice(1).padStart(7)} | ${String(v.recall_p50_ms).padStart(8)} | ${String(v.recall_p99_ms).padStart(8)} | ${String(v.recall_at_10).padStart(6)} | ${String(v.exact_p50_ms).padStart(9)} | ${String(v.build_s).padStart(7)} | ${String(v.reopen_ms).padStart(9)} | ${String(v.bytes_per_memory).padStart(9)} |`,
);
console.log('\n| memories | p50 ms | p99 ms | R@10 | exact p50 | build s | reopen ms | bytes/mem |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) console.log(r);
console.log('\n| embedder (Node) | embed sentences/s | rememberMany /s | × use-lite (rememberMany) |');
console.log('|---|---:|---:|---:|');
for (const [key, f] of Object.entries(embed.models)) {
  const base = embed.models['use-lite']?.remember_many_per_s;
  console.log(`| ${key}${f.backend ? ` (${f.backend})` : ''} | ${f.embed_per_s} | ${f.remember_many_per_s} | ${base ? (f.remember_many_per_s / base).toFixed(2) : '—'} |`);
}
console.log(`use-lite reference (@energetic-ai/embeddings): ${embed.reference?.toFixed(0) ?? 'n/a'} sentences/s\n`);
if (browserModels) console.log(`Chromium: ${JSON.stringify(browserModels)}\n`);
if (retrieval) {
  console.log(
    `retrieval at ${retrieval.n}: semantic p50 ${retrieval.semantic_p50_ms} ms alone, ${retrieval.semantic_interleaved_p50_ms} ms interleaved; ` +
      `hybrid (pool) p50 ${retrieval.hybrid_p50_ms} ms (${retrieval.hybrid_over_semantic}×); hybrid (corpus) p50 ${retrieval.hybrid_corpus_p50_ms} ms (${retrieval.hybrid_corpus_over_semantic}×); ` +
      `default p50 / p99 ${retrieval.default_p50_ms} / ${retrieval.default_p99_ms} ms (${retrieval.default_over_semantic}×); lexical index per remember ${retrieval.lexical_index_ms_per_remember} ms\n`,
  );
}
console.log(
  JSON.stringify({
    machine: machine(),
    date: new Date().toISOString(),
    texts: TEXTS,
    index,
    embed: { ...embed.models, 'use-lite-reference': { per_s: embed.reference === null ? null : Math.round(embed.reference) } },
    ...(browserModels ? { browser_models: browserModels } : {}),
    ...(retrieval ? { retrieval } : {}),
    ...(archive ? { archive } : {}),
    ...(graph ? { graph } : {}),
    ...(browser ? { browser } : {}),
  }),
);
