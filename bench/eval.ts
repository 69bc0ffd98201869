/**
 * `npm run eval`: retrieval and embedder quality on public data, for every embedder available
 * (use-lite, 512-d, bundled; MiniLM and bge-small, 384-d, once `npm run models` has provisioned
 * them), each in its own process in turn, then a summary table; `--embedder KEY` runs one. A
 * query/passage model (bge-small) embeds the claims as queries (with its instruction) and the
 * documents and STS-B sentences as passages.
 *
 * - SciFact (BEIR test split): the 5,183 abstracts are remembered in one store (text = title +
 *   " " + text) and the 300 test claims recalled with k = 100, `touch: false`, as semantic-only,
 *   lexical-only (hybrid, corpus BM25, every weight but lexical at 0), hybrid weighted (default
 *   weights), hybrid RRF, and hybrid weighted with cosine/lexical weights tuned on the SciFact
 *   *train* claims (never on test). Metrics: nDCG@10, Recall@10, Recall@100, MRR@10, binary
 *   relevance. Two references computed in the same run, outside the store: exact cosine over
 *   the whole corpus and plain BM25 over the whole corpus (same tokenizer and formula as the
 *   store), so a gap caused by the store's candidate pool shows up as a difference.
 * - STS Benchmark: Spearman of cosine(embed(s1), embed(s2)) against the gold score, test and dev.
 * - Issue #14 (relevance-first ranking, verdicts, conflict patterns): the pre-#14 hybrid on the
 *   same SciFact claims (bench/scifact-relevance.ts, old terms and formula on a replica pool) and
 *   the relevance verdicts on the claims; the hand-written agent-memory set with every embedder
 *   available, before/after (bench/relevance-eval.ts); the store's conflict patterns on the
 *   hand-written pairs and SICK (bench/contradiction.ts). `--calibrate` instead fits the
 *   embedders' reference relevance calibrations (bench/calibrate.ts) and writes them.
 * - Issues #26 and #27, with every embedder available: LoCoMo's development split
 *   (bench/locomo.ts: turn-level Recall@5/@10, nDCG@10, MRR, per category, the default recall and
 *   each mode), questions asked in other words (bench/reworded.ts: stores of 10, 100, 1,000),
 *   questions naming people, pets, places and things (bench/names.ts, issue #51 item 2) and
 *   changed facts (bench/changed-values.ts: the tuning and held-out pair sets, SICK TEST) and
 *   everyday and work changes (bench/everyday-changes.ts, issue #50: tune and report halves),
 *   and the judge's candidate recall on dialogues (bench/judge-recall.ts).
 *
 * Embeddings are computed once per text set (in parallel child processes when there are many)
 * and cached in bench/.cache/ (gitignored), keyed by the model id, the embedder's source and
 * model package version, and a hash of the texts; a spot check re-embeds three texts and compares.
 * The store is fed through a memoising embedder with the same id and dimension as use-lite that
 * serves those vectors (and runs the real model for any text it has not seen), so it is the same
 * embedder, only not re-run. Memory ids are deterministic (corpus order) so runs are reproducible.
 *
 * The store recalls over the test claims are split between this process and JOBS − 1 children,
 * each with its own store ingested from the same vectors: corpus-index recall under
 * fake-indexeddb is CPU-bound, one core per process.
 *
 * Weight tuning re-scores a replica of the store's candidate pool (cosine pool ∪ corpus-BM25
 * candidates nominated as storage-dexie does, built outside the store by bench/fusion-lab.ts and
 * scored with the store's own scoreCandidates) for each train claim, since the pool does not
 * depend on the weights; the chosen weights are then run through the real store on the test
 * claims, and the replica's agreement with the store is printed.
 *
 * `--experiments` runs only the fusion experiments of bench/fusion-lab.ts (no store, no STS-B, no
 * contradiction detector; a minute or two with cached vectors): each family of fusion rules is
 * tuned on the SciFact train claims, and the test claims are scored once with each family's
 * chosen configuration. It prints the train/test table and a JSON last line. `--sentences` adds a
 * probe of per-sentence vectors (max-sim reranking of the BM25 top 10; the sentences are embedded
 * once and cached like the other vectors, 10–20 minutes the first time).
 *
 * Prints a table on stdout, progress on stderr, and a JSON object as the last stdout line.
 * Exits non-zero only on errors (missing data, a crash), never on a missed target.
 *
 * Usage: npm run eval [-- --embedder use-lite|minilm|bge-small] [-- --no-cache] [-- --jobs N] [-- --queries N (a subset, for quick checks)]
 *        npm run eval -- --calibrate [--embedder use-lite|minilm|bge-small] [--dry-run]
 *        npm run eval -- --experiments [--sentences] [--queries N]
 * Data: ../shared/data beside the repository, or $HOUKAI_DATA.
 */
import 'fake-indexeddb/auto';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVAL_EMBEDDERS, evalEmbedder, parseEmbedderKey, type EvalEmbedderKey, type LoadedEmbedder } from './eval-embedders.ts';
import { bm25Idf, normaliseBm25, scoreWithCorpus } from '../src/core/domain/bm25.ts';
import { loadHandWritten, runContradictionEval, runPatternsEval } from './contradiction.ts';
import { agentMemoryEval, agentTable, type EmbedderReport } from './relevance-eval.ts';
import { runChangedValues } from './changed-values.ts';
import { everydayTable, runEverydayChanges } from './everyday-changes.ts';
import { judgeRecallTable, runJudgeRecall } from './judge-recall.ts';
import { locomoEval, locomoTable, type LocomoReport } from './locomo.ts';
import { rewordedEval, type RewordedReport } from './reworded.ts';
import { namedEval, type NamedReport } from './names.ts';
import { claimConfidence, legacyRankings } from './scifact-relevance.ts';
import { benchEmbedders, cachedEmbed } from './embedders.ts';
import {
  experimentTable,
  LexicalCorpus,
  recallPool,
  runFusionExperiments,
  runSentenceProbe,
  sentencesOf,
  topIndices,
  type SentenceProbeReport,
} from './fusion-lab.ts';
import { ndcgAtK, recallAtK } from '../src/core/domain/evaluate.ts';
import type { Embedder } from '../src/core/ports.ts';
import { cosine } from '../src/core/ops/recall-pipeline.ts';
import { DEFAULT_HYBRID_WEIGHTS, scoreCandidates, type LexicalScorer, type PoolItem } from '../src/core/domain/scoring.ts';
import { lexicalTerms } from '../src/core/domain/tokenize.ts';
import type { Memory, RecallOptions } from '../src/core/types.ts';
import { createMemory, type LocalMemory } from '../src/local.ts';
import {
  docText,
  missingFiles,
  parseBeirCorpus,
  parseBeirQueries,
  parseClaimEvidencePairs,
  parseQrels,
  parseStsb,
  reciprocalRankAtK,
  resolveDataDir,
  spearman,
  type CorpusDoc,
  type StsPair,
} from './datasets.ts';

const SCRIPT = fileURLToPath(import.meta.url);
const REPO = path.resolve(path.dirname(SCRIPT), '..');
const CACHE_DIR = path.join(REPO, 'bench', '.cache');

/** --embedder use-lite|minilm|bge-small: one embedder per process; without it, every available one in turn. */
const EMBEDDER_KEY = parseEmbedderKey(process.argv.includes('--embedder') ? process.argv[process.argv.indexOf('--embedder') + 1] : undefined);
const EMB = evalEmbedder(EMBEDDER_KEY ?? 'use-lite');
const USE_LITE_ID = EMB.id;
const USE_LITE_DIM = EMB.dim;

const K = 100;
/** recall.ts's default overfetch, mirrored by the replica pools. */
const OVERFETCH = 4;
/** Published BEIR SciFact BM25 nDCG@10 (Thakur et al. 2021). */
const PUBLISHED_BM25 = 0.665;
/** Lexical weights tried on the train claims (cosine = 1 − lexical; recency, importance, polarity 0). */
const GRID = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];

const log = (line: string): void => void process.stderr.write(`${line}\n`);
const round = (x: number, digits = 4): number => Number(x.toFixed(digits));
const seconds = (t0: number): number => (performance.now() - t0) / 1000;

// ---------------------------------------------------------------------------------------------
// Child mode: embed one shard of texts and write the raw vectors
// ---------------------------------------------------------------------------------------------

const shardFlag = process.argv.indexOf('--embed-shard');
if (shardFlag >= 0) {
  const [input, output] = process.argv.slice(shardFlag + 1, shardFlag + 3);
  if (!input || !output) throw new Error('usage: eval.ts --embed-shard <texts.json> <out.f32>');
  const { texts, input: kind } = JSON.parse(readFileSync(input, 'utf8')) as { texts: string[]; input: 'query' | 'passage' };
  const embedder = await EMB.create();
  const out = new Float32Array(texts.length * USE_LITE_DIM);
  const step = 64;
  for (let start = 0; start < texts.length; start += step) {
    const vectors = await embedder.embed(texts.slice(start, start + step), { input: kind });
    vectors.forEach((v, i) => out.set(v, (start + i) * USE_LITE_DIM));
    process.stdout.write(`done ${Math.min(texts.length, start + step)}\n`);
  }
  writeFileSync(output, Buffer.from(out.buffer, out.byteOffset, out.byteLength));
  await embedder.dispose();
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// Options and data
// ---------------------------------------------------------------------------------------------

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
/** A child process running part of the store recalls (see runStoreShards). */
const recallShardAt = args.indexOf('--recall-shard');
const CHILD = recallShardAt >= 0 ? { spec: args[recallShardAt + 1]!, out: args[recallShardAt + 2]! } : null;
const USE_CACHE = CHILD !== null || !args.includes('--no-cache');
/** --queries N: only the first N test and train claims (quick checks; not comparable). */
const LIMIT = flag('queries') === undefined ? Number.POSITIVE_INFINITY : Math.max(1, Number(flag('queries')));
/** --experiments: only the fusion experiments (see the module comment). */
const EXPERIMENTS = args.includes('--experiments');
/** --sentences (with --experiments): also the sentence-level probe (embeds ~40k sentences once, then cached). */
const SENTENCES = EXPERIMENTS && args.includes('--sentences');
const JOBS = Math.max(1, Math.min(8, Number(flag('jobs') ?? process.env.HOUKAI_EVAL_JOBS ?? os.cpus().length) || 1));

// --calibrate: fit every available embedder's relevance calibration (bench/calibrate.ts) and stop.
if (args.includes('--calibrate') && recallShardAt < 0) {
  const run = spawn(process.execPath, ['--import', 'tsx', path.join(REPO, 'bench', 'calibrate.ts'), ...args.filter((a) => a !== '--calibrate')], { cwd: REPO, stdio: 'inherit' });
  process.exit(await new Promise<number>((resolve) => run.on('exit', (code) => resolve(code ?? 1))));
}

/** --skip-contradiction: leave out the contradiction detector (it involves no embedder; the multi-embedder run does it once). */
const SKIP_CONTRADICTION = args.includes('--skip-contradiction');

// Without --embedder: each available embedder in its own process, in turn, then a summary.
if (EMBEDDER_KEY === undefined && !CHILD) {
  const rest = args.filter((a) => a !== '--skip-contradiction');
  const results: { key: EvalEmbedderKey; json: Record<string, unknown> | null; reason?: string }[] = [];
  for (const [n, key] of EVAL_EMBEDDERS.entries()) {
    const candidate = evalEmbedder(key);
    if (!candidate.available()) {
      log(`eval: ${key} is not available (run npm run models)`);
      results.push({ key, json: null, reason: 'not provisioned (npm run models)' });
      continue;
    }
    log(`\n=== eval: ${key} (${candidate.id}) ===`);
    const extra = n > 0 || EXPERIMENTS ? ['--skip-contradiction'] : [];
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, ...rest, ...extra, '--embedder', key], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        process.stdout.write(chunk);
      });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`eval --embedder ${key} exited with code ${code}`))));
    });
    const last = out.trim().split('\n').at(-1) ?? '';
    results.push({ key, json: last.startsWith('{') ? (JSON.parse(last) as Record<string, unknown>) : null });
  }
  printSummary(results);
  process.exit(0);
}

function printSummary(results: { key: EvalEmbedderKey; json: Record<string, unknown> | null; reason?: string }[]): void {
  const get = (json: Record<string, unknown> | null, ...keys: string[]): number | undefined => {
    let v: unknown = json;
    for (const k of keys) v = (v as Record<string, unknown> | undefined)?.[k];
    return typeof v === 'number' ? v : undefined;
  };
  const f = (x: number | undefined) => (x === undefined ? '—' : x.toFixed(4));
  console.log('\nSummary (SciFact BEIR test nDCG@10; STS-B test Spearman):\n');
  console.log('| embedder | semantic | lexical | hybrid weighted | hybrid RRF | hybrid tuned | best hybrid − best single | STS-B test |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  const summary: Record<string, unknown> = {};
  for (const { key, json, reason } of results) {
    if (!json) {
      console.log(`| ${key} | ${reason ?? 'failed'} | | | | | | |`);
      continue;
    }
    const semantic = get(json, 'scifact', 'semantic', 'ndcg10');
    const lexical = get(json, 'scifact', 'lexical', 'ndcg10');
    const hybrids = ['hybrid_weighted', 'hybrid_rrf', 'hybrid_tuned'].map((h) => get(json, 'scifact', h, 'ndcg10'));
    const single = Math.max(semantic ?? 0, lexical ?? 0);
    const delta = Math.max(...hybrids.map((h) => h ?? 0)) - single;
    const sts = get(json, 'stsb', 'test_spearman');
    console.log(`| ${key} | ${f(semantic)} | ${f(lexical)} | ${hybrids.map(f).join(' | ')} | ${delta >= 0 ? '+' : ''}${delta.toFixed(4)} | ${f(sts)} |`);
    summary[key] = { semantic, lexical, hybrid_weighted: hybrids[0], hybrid_rrf: hybrids[1], hybrid_tuned: hybrids[2], best_hybrid_minus_best_single: round(delta), stsb_test: sts, stsb_dev: get(json, 'stsb', 'dev_spearman') };
      }
  console.log(JSON.stringify({ machine: machine(), date: new Date().toISOString(), summary }));
}

function machine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown cpu';
  return `${os.cpus().length} × ${cpu.trim()}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

const DATA = resolveDataDir(REPO);
const FILES = {
  corpus: 'scifact/corpus.jsonl',
  queries: 'scifact/queries.jsonl',
  qrels: 'scifact/qrels/test.tsv',
  pairs: 'scifact/claim_evidence_pairs.jsonl',
  stsTest: 'stsb/sts-test.csv',
  stsDev: 'stsb/sts-dev.csv',
};
const missing = missingFiles(DATA, Object.values(FILES));
if (missing.length > 0) {
  process.stderr.write(
    `eval: data not found in ${DATA} (missing: ${missing.join(', ')}).\n` +
      `Put the evaluation data in ../shared/data beside the repository, or set HOUKAI_DATA to its folder.\n`,
  );
  process.exit(2);
}
const read = (rel: string): string => readFileSync(path.join(DATA, rel), 'utf8');

// ---------------------------------------------------------------------------------------------
// Embedding with a disk cache and parallel child processes
// ---------------------------------------------------------------------------------------------

/** Changes whenever the embedder's code or weights change, so stale caches are not reused. */
const embedderFingerprint = (): string => EMB.fingerprint();
const FINGERPRINT = embedderFingerprint();

let realEmbedder: Promise<LoadedEmbedder> | undefined;
const model = (): Promise<LoadedEmbedder> => (realEmbedder ??= EMB.create());

/** Embeds `texts` in `jobs` child processes (longest texts dealt round-robin, so shards are balanced). */
async function embedInChildren(texts: string[], label: string, jobs: number, input: 'query' | 'passage'): Promise<Float32Array[]> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const order = texts.map((_, i) => i).sort((a, b) => texts[b]!.length - texts[a]!.length);
  const shards: number[][] = Array.from({ length: jobs }, () => []);
  order.forEach((idx, j) => shards[j % jobs]!.push(idx));
  const done = new Array<number>(jobs).fill(0);
  let lastLogged = 0;
  const t0 = performance.now();
  const kind = input;
  const result = new Array<Float32Array>(texts.length);
  await Promise.all(
    shards.map(
      (members, s) =>
        new Promise<void>((resolve, reject) => {
          const input = path.join(CACHE_DIR, `.shard-${process.pid}-${label}-${s}.json`);
          const output = path.join(CACHE_DIR, `.shard-${process.pid}-${label}-${s}.f32`);
          writeFileSync(input, JSON.stringify({ texts: members.map((i) => texts[i]!), input: kind }));
          const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, '--embed-shard', input, output, '--embedder', EMB.key], {
            cwd: REPO,
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          let buffered = '';
          child.stdout.on('data', (chunk: Buffer) => {
            buffered += chunk.toString('utf8');
            const lines = buffered.split('\n');
            buffered = lines.pop()!;
            for (const line of lines) if (line.startsWith('done ')) done[s] = Number(line.slice(5));
            const total = done.reduce((a, b) => a + b, 0);
            if (total - lastLogged >= 256 || total === texts.length) {
              lastLogged = total;
              const rate = total / seconds(t0);
              log(`  embed ${label}: ${total}/${texts.length} (${rate.toFixed(1)}/s, ~${Math.round((texts.length - total) / Math.max(rate, 1e-9))} s left)`);
            }
          });
          child.on('error', reject);
          child.on('exit', (code) => {
            try {
              if (code !== 0) throw new Error(`embedding shard ${s} of ${label} exited with code ${code}`);
              const bytes = readFileSync(output);
              const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
              if (all.length !== members.length * USE_LITE_DIM) throw new Error(`shard ${s} of ${label}: ${all.length} floats for ${members.length} texts`);
              members.forEach((idx, j) => (result[idx] = all.slice(j * USE_LITE_DIM, (j + 1) * USE_LITE_DIM)));
              resolve();
            } catch (error) {
              reject(error);
            } finally {
              rmSync(input, { force: true });
              rmSync(output, { force: true });
            }
          });
        }),
    ),
  );
  return result;
}

interface EmbedStats {
  texts: number;
  cached: boolean;
  seconds: number;
}
const embedStats: Record<string, EmbedStats> = {};

/** Vectors for `texts` (in order): from bench/.cache when present, else computed and cached. */
async function embedAll(label: string, texts: string[], input: 'query' | 'passage' = 'passage'): Promise<Float32Array[]> {
  const t0 = performance.now();
  // Queries of an asymmetric model (bge-small) carry its instruction: their own cache entries.
  if (input === 'query' && EMB.asymmetric) label = `${label}-as-queries`;
  else input = 'passage';
  const key = createHash('sha256').update(FINGERPRINT);
  for (const t of texts) key.update(t).update('\u0000');
  const file = path.join(CACHE_DIR, `${EMB.key === 'use-lite' ? '' : `${EMB.key}-`}${label}-${key.digest('hex').slice(0, 16)}.f32`);
  if (USE_CACHE && existsSync(file)) {
    const bytes = readFileSync(file);
    if (bytes.byteLength === texts.length * USE_LITE_DIM * 4) {
      const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
      const vectors = texts.map((_, i) => all.slice(i * USE_LITE_DIM, (i + 1) * USE_LITE_DIM));
      embedStats[label] = { texts: texts.length, cached: true, seconds: round(seconds(t0), 2) };
      log(`  ${CHILD ? '[shard] ' : ''}${label}: ${texts.length} vectors from cache`);
      return vectors;
    }
    log(`  ${label}: cache file has the wrong size, recomputing`);
  }
  if (CHILD) throw new Error(`eval shard: no cached vectors for ${label}`);
  log(`  ${label}: embedding ${texts.length} texts${texts.length >= 512 && JOBS > 1 ? ` in ${JOBS} processes` : ''}…`);
  const vectors = texts.length >= 512 && JOBS > 1 ? await embedInChildren(texts, label, JOBS, input) : await (await model()).embed(texts, { input });
  const flat = new Float32Array(texts.length * USE_LITE_DIM);
  vectors.forEach((v, i) => flat.set(v, i * USE_LITE_DIM));
  if (!(Number.isFinite(LIMIT) && label.includes('claims'))) {
    // Written even with --no-cache (which only skips reading): the recall shards read the corpus.
    mkdirSync(CACHE_DIR, { recursive: true });
    writeFileSync(`${file}.tmp`, Buffer.from(flat.buffer));
    renameSync(`${file}.tmp`, file);
  }
  embedStats[label] = { texts: texts.length, cached: false, seconds: round(seconds(t0), 2) };
  log(`  ${label}: ${texts.length} texts embedded in ${seconds(t0).toFixed(1)} s`);
  return vectors;
}

/** The use-lite embedder, memoised: same id and dim, serves precomputed vectors, runs the model on a miss. */
const known = new Map<string, Float32Array>();
let memoMisses = 0;
const memoEmbedder: Embedder = {
  id: USE_LITE_ID,
  dim: USE_LITE_DIM,
  ...(EMB.queryInstruction ? { queryInstruction: EMB.queryInstruction } : {}),
  async embed(texts, options) {
    const misses = [...new Set(texts.filter((t) => !known.has(t)))];
    if (misses.length > 0) {
      memoMisses += misses.length;
      const computed = await (await model()).embed(misses, options);
      misses.forEach((t, i) => known.set(t, computed[i]!));
    }
    return texts.map((t) => known.get(t)!.slice());
  },
};
function remember(texts: string[], vectors: Float32Array[]): void {
  texts.forEach((t, i) => known.set(t, vectors[i]!));
}

// ---------------------------------------------------------------------------------------------
// Metrics
// ---------------------------------------------------------------------------------------------

interface Metrics {
  ndcg10: number;
  recall10: number;
  recall100: number;
  mrr10: number;
}

function score(rankings: Ranking, qrels: Map<string, Set<string>>): Metrics {
  let ndcg = 0;
  let r10 = 0;
  let r100 = 0;
  let mrr = 0;
  for (const [qid, relevant] of qrels) {
    const ids = rankings.get(qid) ?? [];
    ndcg += ndcgAtK(ids, relevant, 10);
    r10 += recallAtK(ids, relevant, 10);
    r100 += recallAtK(ids, relevant, 100);
    mrr += reciprocalRankAtK(ids, relevant, 10);
  }
  const n = qrels.size || 1;
  return { ndcg10: round(ndcg / n), recall10: round(r10 / n), recall100: round(r100 / n), mrr10: round(mrr / n) };
}

/** Mean overlap of the top-k of two rankings, as a fraction of k. */
function overlapAtK(a: Ranking, b: Ranking, k: number): number {
  let total = 0;
  for (const [qid, ids] of a) {
    const other = new Set((b.get(qid) ?? []).slice(0, k));
    total += ids.slice(0, k).filter((id) => other.has(id)).length / k;
  }
  return round(total / (a.size || 1), 3);
}

// ---------------------------------------------------------------------------------------------
// Run
// ---------------------------------------------------------------------------------------------

const tStart = performance.now();
if (!CHILD) {
  log(`houkai-web eval — ${machine()}`);
  log(`  data: ${DATA}${USE_CACHE ? '' : ' (cache off)'}`);
}

const corpusParsed = parseBeirCorpus(read(FILES.corpus));
const docs: CorpusDoc[] = corpusParsed.docs;
const docTexts = docs.map(docText);
const testQueriesAll = parseBeirQueries(read(FILES.queries)).queries;
const testQrels = parseQrels(read(FILES.qrels));
// Queries = the test claims that have judgements (all 300 here).
const testQueries = new Map([...testQueriesAll].filter(([id]) => testQrels.qrels.has(id)).slice(0, LIMIT));
const qrelsTest = new Map([...testQrels.qrels].filter(([id]) => testQueries.has(id)));
const train = parseClaimEvidencePairs(read(FILES.pairs), 'train');
const corpusIds = new Set(docs.map((d) => d.id));
// Train claims must be disjoint from the test claims, and their evidence must be in the corpus.
const testTexts = new Set(testQueries.values());
for (const [id, text] of [...train.queries]) {
  if (testQueries.has(id) || testTexts.has(text)) {
    train.queries.delete(id);
    train.qrels.delete(id);
  }
}
for (const [id, rel] of train.qrels) {
  for (const d of rel) if (!corpusIds.has(d)) rel.delete(d);
  if (rel.size === 0) {
    train.qrels.delete(id);
    train.queries.delete(id);
  }
}
for (const id of [...train.queries.keys()].slice(LIMIT)) {
  train.queries.delete(id);
  train.qrels.delete(id);
}
if (Number.isFinite(LIMIT) && !CHILD) log(`  --queries ${LIMIT}: a subset of the claims; the figures are not comparable with a full run`);
const stsTest = parseStsb(read(FILES.stsTest));
const stsDev = parseStsb(read(FILES.stsDev));
if (!CHILD) log(
  `  scifact: ${docs.length} docs (${corpusParsed.malformed} malformed), ${testQueries.size} test claims with ${[...qrelsTest.values()].reduce((a, s) => a + s.size, 0)} judgements (${testQrels.malformed} malformed qrels), ${train.queries.size} train claims`,
);
if (!CHILD) log(`  sts-b: test ${stsTest.pairs.length} pairs (${stsTest.malformed} malformed rows skipped), dev ${stsDev.pairs.length} (${stsDev.malformed} skipped)`);
if (docs.length === 0 || testQueries.size === 0 || stsTest.pairs.length === 0) throw new Error('eval: a data file parsed to nothing');

// 1. Embeddings (cached).
const tEmbed = performance.now();
const uniqueSts = [...new Set([...stsTest.pairs, ...stsDev.pairs].flatMap((p) => [p.s1, p.s2]))];
const corpusVectors = await embedAll('scifact-corpus', docTexts);
remember(docTexts, corpusVectors);
const testQueryTexts = [...testQueries.values()];
const trainQueryTexts = [...train.queries.values()];
// A recall shard gets its query vectors in its spec; only the main process embeds the rest.
if (!CHILD) {
  // Claims are queries (bge-small prefixes its instruction; the store's recall asks for them as queries).
  remember(testQueryTexts, await embedAll('scifact-test-claims', testQueryTexts, 'query'));
  remember(trainQueryTexts, await embedAll('scifact-train-claims', trainQueryTexts, 'query'));
  if (!EXPERIMENTS) remember(uniqueSts, await embedAll('stsb-sentences', uniqueSts));
  // Spot check: cached/child vectors must match what this process's model computes now.
  const sample = EXPERIMENTS ? [docTexts[0]!, testQueryTexts[0]!, trainQueryTexts[0]!] : [docTexts[0]!, testQueryTexts[0]!, uniqueSts[0]!];
  const fresh = [
    ...(await (await model()).embed([sample[0]!])),
    ...(await (await model()).embed([sample[1]!], { input: 'query' })),
    ...(await (await model()).embed([sample[2]!], EXPERIMENTS ? { input: 'query' } : {})),
  ];
  const worst = Math.min(...sample.map((t, i) => cosine(fresh[i]!, known.get(t)!)));
  if (worst < 0.9999) throw new Error(`eval: cached vectors disagree with the model (cosine ${worst}); rerun with --no-cache`);
  log(`  spot check: cached vectors match the model (min cosine ${worst.toFixed(6)})`);
}
const embedSeconds = seconds(tEmbed);

/** Whole-corpus BM25 with the store's tokenizer and formula; corpus index = primary-key order (ids below). */
const termsOf = docTexts.map((t) => lexicalTerms(t));
const lexicalCorpus = new LexicalCorpus(termsOf);

// --experiments: the fusion experiments alone (tuned on train, test scored once per chosen configuration).
if (EXPERIMENTS) {
  const labQueries = (queries: Map<string, string>, qrels: Map<string, Set<string>>) =>
    [...queries].map(([id, text]) => ({ id, terms: lexicalTerms(text), vector: known.get(text)!, relevant: qrels.get(id)! }));
  const report = runFusionExperiments(
    { docIds: docs.map((d) => d.id), docVectors: corpusVectors, corpus: lexicalCorpus, k: K, overfetch: OVERFETCH },
    labQueries(train.queries, train.qrels),
    labQueries(testQueries, qrelsTest),
    log,
  );
  console.log(`\nFusion experiments, ${USE_LITE_ID}: each family tuned on ${report.train_queries} SciFact train claims; the ${report.test_queries} test claims scored once with the chosen configuration.`);
  console.log(`Pools replicate recall(k ${K}, overfetch ${OVERFETCH}, lexicalIndex 'corpus') with exact cosine; nDCG@10.\n`);
  console.log(experimentTable(report));
  const best = report.rows.reduce((a, b) => (b.test_ndcg10 > a.test_ndcg10 ? b : a));
  console.log(
    `\nTarget (hybrid ≥ best single + 0.02 on test): ${report.rows.some((r) => r.test_delta_vs_best_single >= 0.02) ? 'MET' : 'missed'}` +
      ` (best chosen configuration: ${best.family}, ${best.test_ndcg10.toFixed(4)}, ${best.test_delta_vs_best_single >= 0 ? '+' : ''}${best.test_delta_vs_best_single.toFixed(4)}).\n`,
  );
  let sentenceProbe: SentenceProbeReport | undefined;
  if (SENTENCES) {
    const split = (d: number) => sentencesOf(docs[d]!.title, docs[d]!.text);
    sentenceProbe = await runSentenceProbe(
      { docIds: docs.map((d) => d.id), docVectors: corpusVectors, corpus: lexicalCorpus, k: K, overfetch: OVERFETCH },
      labQueries(train.queries, train.qrels),
      labQueries(testQueries, qrelsTest),
      split,
      (texts) => embedAll('scifact-sentences-for-claims', texts),
    );
    console.log(
      `Sentence probe (${sentenceProbe.sentences} sentences of the ${sentenceProbe.documents} documents in the claims' BM25 top-${sentenceProbe.depth}; ` +
        `BM25 there: train ${sentenceProbe.bm25.train.toFixed(4)}, test ${sentenceProbe.bm25.test.toFixed(4)}):\n`,
    );
    console.log(`| rerank (w chosen on train) | train nDCG@10 | Δ train BM25 | test nDCG@10 | Δ test BM25 |\n|---|---:|---:|---:|---:|`);
    for (const r of sentenceProbe.rows) {
      const sign = (x: number) => (x >= 0 ? `+${x.toFixed(4)}` : x.toFixed(4));
      console.log(`| ${r.label} [w ${r.chosen_w}] | ${r.train_ndcg10.toFixed(4)} | ${sign(r.train_delta_vs_bm25)} | ${r.test_ndcg10.toFixed(4)} | ${sign(r.test_delta_vs_bm25)} |`);
    }
    console.log('');
  }
  console.log(
    JSON.stringify({
      machine: machine(),
      date: new Date().toISOString(),
      embedder: USE_LITE_ID,
      experiments: report,
      ...(sentenceProbe ? { sentence_probe: sentenceProbe, embeddings: embedStats } : {}),
      timing_s: round(seconds(tStart), 1),
    }),
  );
  (await realEmbedder)?.dispose();
  process.exit(0);
}

// 3. Ingest the corpus into one store.
const tIngest = performance.now();
// Deterministic memory ids (corpus order), so every shard's store and the replica below agree on
// the primary-key order that the corpus-candidate cap cuts in. The product default is random UUIDs.
let nextId = 0;
const store: LocalMemory = await createMemory({
  name: `eval-scifact-${process.pid}-${Date.now()}`,
  embedder: memoEmbedder,
  index: 'hnsw',
  snapshotDelayMs: 3_600_000,
  ids: { next: () => `doc-${String(nextId++).padStart(6, '0')}` },
});
const docOf = new Map<string, string>(); // memory id → corpus _id
const memoryIdOf: string[] = []; // corpus index → memory id
const memories: Memory[] = []; // corpus index → stored memory
const docIndexOf = new Map<string, number>(); // memory id → corpus index
{
  let lastLogged = -1;
  const stored = await store.rememberMany(
    docTexts.map((text) => ({ text })),
    {
      batchSize: 256,
      onProgress: (e) => {
        if (e.kind !== 'write' || (e.done - lastLogged < 1024 && e.done !== e.total)) return;
        lastLogged = e.done;
        log(`  ${CHILD ? '[shard] ' : ''}ingest: ${e.done}/${e.total} memories (${seconds(tIngest).toFixed(1)} s)`);
      },
    },
  );
  stored.forEach((r, i) => {
    docOf.set(r.memory.id, docs[i]!.id);
    memoryIdOf.push(r.memory.id);
    memories.push(r.memory);
    docIndexOf.set(r.memory.id, i);
  });
}
const ingestSeconds = seconds(tIngest);
log(`  ${CHILD ? '[shard] ' : ''}ingested ${docs.length} docs in ${ingestSeconds.toFixed(1)} s`);

type Config = Omit<RecallOptions, 'k' | 'touch'>;
type Ranking = Map<string, string[]>; // query id → corpus ids, best first

/** Recalls every query with one configuration (k = 100, touch: false) → corpus ids, best first. */
async function runStore(queries: [string, string][], config: Config, label: string): Promise<{ ranking: Ranking; ms: number }> {
  const ranking: Ranking = new Map();
  const t0 = performance.now();
  let i = 0;
  for (const [qid, text] of queries) {
    const hits = await store.recall(text, { ...config, k: K, touch: false });
    ranking.set(qid, hits.map((h) => docOf.get(h.memory.id)!));
    if (++i % 100 === 0 || i === queries.length) log(`  ${label}: ${i}/${queries.length} queries (${seconds(t0).toFixed(1)} s)`);
  }
  return { ranking, ms: performance.now() - t0 };
}

interface ShardSpec {
  configs: Record<string, Config>;
  queries: [string, string][];
  /** The query vectors, aligned with `queries` (main process only embeds queries). */
  vectors?: number[][];
}
interface ShardResult {
  rankings: Record<string, [string, string[]][]>;
  ms: number;
  count: number;
}
async function runShard(spec: ShardSpec, label: string): Promise<ShardResult> {
  const rankings: ShardResult['rankings'] = {};
  let ms = 0;
  for (const [name, config] of Object.entries(spec.configs)) {
    const r = await runStore(spec.queries, config, `${label}${name}`);
    rankings[name] = [...r.ranking];
    ms += r.ms;
  }
  return { rankings, ms, count: spec.queries.length * Object.keys(spec.configs).length };
}

if (CHILD) {
  const spec = JSON.parse(readFileSync(CHILD.spec, 'utf8')) as ShardSpec;
  spec.queries.forEach(([, text], i) => known.set(text, Float32Array.from(spec.vectors![i]!)));
  writeFileSync(CHILD.out, JSON.stringify(await runShard(spec, '[shard] ')));
  await store.close();
  process.exit(0);
}

// 2. STS-B.
function stsSpearman(pairs: StsPair[]): number {
  const sims = pairs.map((p) => cosine(known.get(p.s1)!, known.get(p.s2)!));
  return round(spearman(sims, pairs.map((p) => p.score)));
}
const stsb = { test_spearman: stsSpearman(stsTest.pairs), dev_spearman: stsSpearman(stsDev.pairs), test_pairs: stsTest.pairs.length, dev_pairs: stsDev.pairs.length, malformed_rows: stsTest.malformed + stsDev.malformed };

/**
 * Runs the configurations over the test claims, split between this process and JOBS − 1 child
 * processes (each with its own store, ingested from the same cached vectors with the same ids):
 * corpus-index recall in Node is CPU-bound in fake-indexeddb, one core per process.
 */
async function runStoreShards(configs: Record<string, Config>, queries: [string, string][]): Promise<{ rankings: Record<string, Ranking>; ms: number; count: number }> {
  const jobs = Math.min(JOBS, Math.max(1, Math.floor(queries.length / 20)));
  const parts: [string, string][][] = Array.from({ length: jobs }, () => []);
  queries.forEach((q, i) => parts[i % jobs]!.push(q));
  const children = parts.slice(1).map(
    (part, j) =>
      new Promise<ShardResult>((resolve, reject) => {
        mkdirSync(CACHE_DIR, { recursive: true });
        const specFile = path.join(CACHE_DIR, `.recall-${process.pid}-${j}.json`);
        const outFile = path.join(CACHE_DIR, `.recall-${process.pid}-${j}.out.json`);
        const vectors = part.map(([, text]) => Array.from(known.get(text)!));
        writeFileSync(specFile, JSON.stringify({ configs, queries: part, vectors } satisfies ShardSpec));
        const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, '--recall-shard', specFile, outFile, '--embedder', EMB.key], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
        child.on('error', reject);
        child.on('exit', (code) => {
          try {
            if (code !== 0) throw new Error(`recall shard ${j + 1} exited with code ${code}`);
            resolve(JSON.parse(readFileSync(outFile, 'utf8')) as ShardResult);
          } catch (error) {
            reject(error);
          } finally {
            rmSync(specFile, { force: true });
            rmSync(outFile, { force: true });
          }
        });
      }),
  );
  const results = await Promise.all([runShard({ configs, queries: parts[0]! }, ''), ...children]);
  const rankings: Record<string, Ranking> = {};
  for (const name of Object.keys(configs)) {
    const merged: Ranking = new Map();
    for (const r of results) for (const [qid, ids] of r.rankings[name]!) merged.set(qid, ids);
    // Back in query order.
    rankings[name] = new Map(queries.map(([qid]) => [qid, merged.get(qid)!]));
  }
  return { rankings, ms: results.reduce((a, r) => a + r.ms, 0), count: results.reduce((a, r) => a + r.count, 0) };
}

// 4. References outside the store: exact cosine and BM25 over the whole corpus.
const corpusStats = { documentCount: docs.length, averageLength: lexicalCorpus.averageLength, documentFrequency: (t: string) => lexicalCorpus.df(t) };
const corpusNorms = corpusVectors.map((v) => Math.sqrt(v.reduce((a, x) => a + x * x, 0)));
/** Exact cosine of the query to every document (recall.ts's cosine, with the document norms precomputed). */
function cosineAll(query: Float32Array): Float64Array {
  const s = new Float64Array(docs.length);
  let qq = 0;
  for (let i = 0; i < query.length; i++) qq += query[i]! * query[i]!;
  const qn = Math.sqrt(qq);
  corpusVectors.forEach((v, d) => {
    let dot = 0;
    for (let i = 0; i < v.length; i++) dot += query[i]! * v[i]!;
    s[d] = qn > 0 && corpusNorms[d]! > 0 ? dot / (qn * corpusNorms[d]!) : 0;
  });
  return s;
}

/**
 * A replica of the store's recall pool for `lexicalIndex: 'corpus'` (recall.ts, storage-dexie.ts),
 * with exact cosine in place of HNSW (bench/fusion-lab.ts `recallPool`): the k·overfetch nearest
 * documents, then the best max(k·overfetch, 20) documents by corpus BM25 among the candidates the
 * store nominates (summed IDF of the rarer query terms, at most 4 rows per slot). The pool is
 * scored by the store's own scoreCandidates with a corpus-BM25 lexical scorer normalised as
 * recall.ts's corpusScorer does (bm25.ts: normaliseBm25). The pool does not depend on the weights, so
 * tuning re-scores one pool per query.
 */
interface Replica {
  text: string;
  pool: PoolItem[];
  /** Raw corpus BM25 per pool item. */
  raw: Map<PoolItem, number>;
  /** Whole-corpus BM25 and cosine rankings (the references). */
  bm25Top: number[];
  cosineTop: number[];
  /** Rows lexicalCandidates returns for this query, and the posting entries of its terms. */
  rowsRead: number;
  keysRead: number;
  /** Documents sharing a query term that are in neither the cosine pool nor the lexical top. */
  outsideCandidates: Set<number>;
}
function replica(text: string): Replica {
  const terms = lexicalTerms(text);
  const bm = lexicalCorpus.bm25(terms);
  const cos = cosineAll(known.get(text)!);
  const { pool: indices, cosineCount, nomination } = recallPool(lexicalCorpus, bm, cos, terms, { k: K, overfetch: OVERFETCH });
  const pool: PoolItem[] = [];
  const raw = new Map<PoolItem, number>();
  for (const d of indices) {
    const item: PoolItem = { memory: memories[d]!, cosine: cos[d]! };
    pool.push(item);
    raw.set(item, bm[d]!);
  }
  const reachable = new Set([...indices.slice(0, cosineCount), ...nomination.candidates]);
  const outsideCandidates = new Set<number>();
  for (let d = 0; d < bm.length; d++) if (bm[d]! > 0 && !reachable.has(d)) outsideCandidates.add(d);
  return {
    text,
    pool,
    raw,
    bm25Top: topIndices(bm, K, (d) => bm[d]! > 0),
    cosineTop: topIndices(cos, K),
    rowsRead: nomination.candidates.length,
    keysRead: nomination.keysRead,
    outsideCandidates,
  };
}
function replicaRank(r: Replica, config: Config, now: number): string[] {
  const lexicalScorer: LexicalScorer = (terms, pool) =>
    normaliseBm25(
      pool.map((item) => r.raw.get(item) ?? 0),
      pool.map(() => []),
      [...new Set(terms)].map((t) => bm25Idf(lexicalCorpus.documentCount, lexicalCorpus.df(t))),
    );
  const hits = scoreCandidates(r.pool, r.text, {
    mode: config.mode ?? 'semantic',
    fusion: config.fusion ?? 'weighted',
    ...(config.weights ? { weights: config.weights } : {}),
    now,
    lexicalScorer,
  });
  return hits.slice(0, K).map((h) => docs[docIndexOf.get(h.memory.id)!]!.id);
}

const tReplica = performance.now();
const testReplicas = new Map([...testQueries].map(([qid, text]) => [qid, replica(text)]));
{
  // The postings shortcut must give exactly scoreWithCorpus's numbers.
  let checked = 0;
  for (const r of testReplicas.values()) {
    if (checked++ >= 3) break;
    const qTerms = lexicalTerms(r.text);
    const bm = lexicalCorpus.bm25(qTerms);
    for (const d of r.bm25Top.slice(0, 10)) {
      const direct = scoreWithCorpus(corpusStats, qTerms, termsOf[d]!).score;
      if (Math.abs(direct - bm[d]!) > 1e-9) throw new Error(`eval: reference BM25 mismatch on doc ${docs[d]!.id}: ${direct} vs ${bm[d]}`);
    }
  }
}
const trainReplicas = new Map([...train.queries].map(([qid, text]) => [qid, replica(text)]));
const replicaSeconds = seconds(tReplica);
log(`  replica pools for ${testReplicas.size} test and ${trainReplicas.size} train claims in ${replicaSeconds.toFixed(1)} s`);

// 5. Tuning on the train claims only (on the replica pools): cosine/lexical weights of the weighted hybrid.
const tTune = performance.now();
const nowS = Date.now() / 1000;
const tuneWeights = (lexical: number) => ({ cosine: round(1 - lexical, 2), lexical, recency: 0, importance: 0, polarityWeight: 0 });
const grid: { lexical: number; train_ndcg10: number }[] = [];
for (const lexical of GRID) {
  const config: Config = { mode: 'hybrid', lexicalIndex: 'corpus', fusion: 'weighted', weights: tuneWeights(lexical) };
  const ranking: Ranking = new Map([...trainReplicas].map(([qid, r]) => [qid, replicaRank(r, config, nowS)]));
  grid.push({ lexical, train_ndcg10: score(ranking, train.qrels).ndcg10 });
}
const best = grid.reduce((a, b) => (b.train_ndcg10 > a.train_ndcg10 ? b : a));
const tunedWeights = tuneWeights(best.lexical);
const trainOnly = {
  semantic: score(new Map([...trainReplicas].map(([qid, r]) => [qid, r.cosineTop.map((d) => docs[d]!.id)])), train.qrels).ndcg10,
  bm25: score(new Map([...trainReplicas].map(([qid, r]) => [qid, r.bm25Top.map((d) => docs[d]!.id)])), train.qrels).ndcg10,
};
const tuneSeconds = seconds(tTune);
log(`  tune (train): ${grid.map((g) => `lexical ${g.lexical} → ${g.train_ndcg10}`).join(', ')}; chose ${best.lexical} (${tuneSeconds.toFixed(1)} s)`);

// 6. The store, on the test claims.
const LEXICAL_ONLY: Config = {
  mode: 'hybrid',
  lexicalIndex: 'corpus',
  weights: { cosine: 0, lexical: 1, entity: 0, time: 0, phrase: 0, context: 0, recency: 0, importance: 0, polarityWeight: 0 },
};
const CONFIGS: Record<string, Config> = {
  // What `recall(query)` does with no options (hybrid with corpus candidates since issue #26).
  default: {},
  semantic: { mode: 'semantic' },
  lexical: LEXICAL_ONLY,
  hybrid_weighted: { mode: 'hybrid', lexicalIndex: 'corpus', fusion: 'weighted' },
  hybrid_rrf: { mode: 'hybrid', lexicalIndex: 'corpus', fusion: 'rrf' },
  hybrid_tuned: { mode: 'hybrid', lexicalIndex: 'corpus', fusion: 'weighted', weights: tunedWeights },
};

const tRecall = performance.now();
log(`  store recalls: ${Object.keys(CONFIGS).length} configurations × ${testQueries.size} test claims in ${Math.min(JOBS, Math.max(1, Math.floor(testQueries.size / 20)))} processes…`);
const storeRun = await runStoreShards(CONFIGS, [...testQueries]);
const rankings = storeRun.rankings;
const recallSeconds = seconds(tRecall);
const recallCount = storeRun.count;
const recallMs = storeRun.ms;
const replicaRankings: Record<string, Ranking> = {};
for (const [name, config] of Object.entries(CONFIGS)) {
  if (config.mode === 'hybrid') replicaRankings[name] = new Map([...testReplicas].map(([qid, r]) => [qid, replicaRank(r, config, Date.now() / 1000)]));
}
// What-ifs on the replica (diagnostics only; nothing is chosen from them): RRF gives every signal
// with weight > 0 its own ranking, so constant recency/importance still rank the pool (ties in pool
// order, i.e. cosine order, and batch order for recency).
const WHAT_IFS: Record<string, { label: string; config: Config }> = {
  rrf_cosine_lexical_only: {
    label: 'RRF, default cos/lex weights, recency = importance = 0',
    config: { mode: 'hybrid', lexicalIndex: 'corpus', fusion: 'rrf', weights: { cosine: 0.55, lexical: 0.2, recency: 0, importance: 0 } },
  },
  rrf_equal_cosine_lexical: {
    label: 'RRF, cos 1 / lex 1, recency = importance = 0',
    config: { mode: 'hybrid', lexicalIndex: 'corpus', fusion: 'rrf', weights: { cosine: 1, lexical: 1, recency: 0, importance: 0 } },
  },
  linear_reference_formula: {
    label: "linear (AI-Houkai's sum, default weights), new terms",
    config: { mode: 'hybrid', lexicalIndex: 'corpus', fusion: 'linear' },
  },
  weighted_cosine_lexical_only: {
    label: 'weighted, default cos/lex weights, recency = importance = 0',
    config: { mode: 'hybrid', lexicalIndex: 'corpus', fusion: 'weighted', weights: { cosine: 0.55, lexical: 0.2, recency: 0, importance: 0 } },
  },
};
const whatIf: Record<string, Metrics> = {};
for (const [key, { config }] of Object.entries(WHAT_IFS)) {
  whatIf[key] = score(new Map([...testReplicas].map(([qid, r]) => [qid, replicaRank(r, config, Date.now() / 1000)])), qrelsTest);
}

const bm25Reference: Ranking = new Map([...testReplicas].map(([qid, r]) => [qid, r.bm25Top.map((d) => docs[d]!.id)]));
const semanticReference: Ranking = new Map([...testReplicas].map(([qid, r]) => [qid, r.cosineTop.map((d) => docs[d]!.id)]));
// The lexical index in memory gives the exact BM25 top max(k·overfetch, 20) outside the cosine pool.
const candidateLimit = Math.max(K * OVERFETCH, 20);
const capStats = {
  reference_top10_outside_pool_and_candidates: 0,
  reference_top100_outside_pool_and_candidates: 0,
  candidate_rows_read_mean: 0,
  candidate_rows_read_max: 0,
  posting_keys_read_mean: 0,
};
for (const r of testReplicas.values()) {
  capStats.candidate_rows_read_mean += r.rowsRead / testReplicas.size;
  capStats.candidate_rows_read_max = Math.max(capStats.candidate_rows_read_max, r.rowsRead);
  capStats.posting_keys_read_mean += r.keysRead / testReplicas.size;
  capStats.reference_top10_outside_pool_and_candidates += r.bm25Top.slice(0, 10).filter((d) => r.outsideCandidates.has(d)).length;
  capStats.reference_top100_outside_pool_and_candidates += r.bm25Top.filter((d) => r.outsideCandidates.has(d)).length;
}

// Issue #14: the hybrid before it (old terms, AI-Houkai's sum) on the same claims, and the
// relevance verdicts on the claims (answered, and with the cited abstracts taken out).
const legacyRanking = legacyRankings({
  docTexts,
  docIds: docs.map((d) => d.id),
  memories,
  queries: [...testQueries],
  cosinesOf: (text) => cosineAll(known.get(text)!),
  k: K,
  overfetch: OVERFETCH,
  now: Date.now() / 1000,
});
const claimsConfidence = claimConfidence({
  embedderId: USE_LITE_ID,
  replicas: testReplicas,
  qrels: qrelsTest,
  docIdOf: (id) => docs[docIndexOf.get(id)!]!.id,
  queryVector: (text) => known.get(text)!,
  corpusVectors,
  now: Date.now() / 1000,
});

// 7. Results.
const scifact = {
  hybrid_weighted_before_14: score(legacyRanking, qrelsTest),
  semantic: score(rankings.semantic!, qrelsTest),
  lexical: score(rankings.lexical!, qrelsTest),
  bm25_reference: score(bm25Reference, qrelsTest),
  hybrid_weighted: score(rankings.hybrid_weighted!, qrelsTest),
  hybrid_rrf: score(rankings.hybrid_rrf!, qrelsTest),
  hybrid_tuned: { ...score(rankings.hybrid_tuned!, qrelsTest), weights: tunedWeights, grid },
  semantic_reference: score(semanticReference, qrelsTest),
  lexical_replica: score(replicaRankings.lexical!, qrelsTest),
  hybrid_weighted_replica: score(replicaRankings.hybrid_weighted!, qrelsTest),
};
const diagnostics = {
  lexical_vs_bm25_reference_overlap10: overlapAtK(rankings.lexical!, bm25Reference, 10),
  lexical_vs_bm25_reference_overlap100: overlapAtK(rankings.lexical!, bm25Reference, 100),
  lexical_vs_replica_overlap10: overlapAtK(rankings.lexical!, replicaRankings.lexical!, 10),
  hybrid_weighted_vs_replica_overlap10: overlapAtK(rankings.hybrid_weighted!, replicaRankings.hybrid_weighted!, 10),
  hybrid_rrf_vs_replica_overlap10: overlapAtK(rankings.hybrid_rrf!, replicaRankings.hybrid_rrf!, 10),
  hybrid_tuned_vs_replica_overlap10: overlapAtK(rankings.hybrid_tuned!, replicaRankings.hybrid_tuned!, 10),
  train_semantic_exact_ndcg10: trainOnly.semantic,
  train_bm25_reference_ndcg10: trainOnly.bm25,
  semantic_vs_exact_overlap10: overlapAtK(rankings.semantic!, semanticReference, 10),
  semantic_vs_exact_overlap100: overlapAtK(rankings.semantic!, semanticReference, 100),
  corpus_candidate_limit: candidateLimit,
  cosine_pool: K * OVERFETCH,
  ...capStats,
  candidate_rows_read_mean: Math.round(capStats.candidate_rows_read_mean),
  posting_keys_read_mean: Math.round(capStats.posting_keys_read_mean),
  test_queries: testQueries.size,
  memo_embedder_misses: memoMisses,
};

const name = (key: string): string =>
  ({
    semantic: 'semantic-only (store)',
    lexical: 'lexical-only (store, corpus BM25)',
    bm25_reference: 'BM25 reference (whole corpus)',
    hybrid_weighted: 'hybrid weighted (default weights)',
    hybrid_weighted_before_14: 'hybrid weighted before #14 (old terms and formula, replica)',
    hybrid_rrf: 'hybrid RRF',
    hybrid_tuned: `hybrid weighted (tuned: cos ${tunedWeights.cosine}, lex ${tunedWeights.lexical})`,
    semantic_reference: 'exact cosine reference (whole corpus)',
    lexical_replica: 'lexical-only, replica pool (check)',
    hybrid_weighted_replica: 'hybrid weighted, replica pool (check)',
  })[key] ?? key;
const rows = Object.entries(scifact).map(
  ([key, m]) =>
    `| ${name(key).padEnd(52)} | ${m.ndcg10.toFixed(4)} | ${m.recall10.toFixed(4)} | ${m.recall100.toFixed(4)} | ${m.mrr10.toFixed(4)} |`,
);
const bestSingle = Math.max(scifact.semantic.ndcg10, scifact.lexical.ndcg10);
const targets = {
  hybrid_weighted_beats_best_single_by_0_02: scifact.hybrid_weighted.ndcg10 >= bestSingle + 0.02,
  hybrid_rrf_beats_best_single_by_0_02: scifact.hybrid_rrf.ndcg10 >= bestSingle + 0.02,
  hybrid_tuned_beats_best_single_by_0_02: scifact.hybrid_tuned.ndcg10 >= bestSingle + 0.02,
  store_lexical_within_0_02_of_published_bm25: Math.abs(scifact.lexical.ndcg10 - PUBLISHED_BM25) <= 0.02,
  bm25_reference_within_0_02_of_published_bm25: Math.abs(scifact.bm25_reference.ndcg10 - PUBLISHED_BM25) <= 0.02,
};

const wd = DEFAULT_HYBRID_WEIGHTS;
console.log(`\nSciFact BEIR test (${testQueries.size} claims, ${docs.length} docs), embedder ${USE_LITE_ID}, k = ${K}, touch: false\n`);
console.log(`| ${'configuration'.padEnd(52)} | nDCG@10 | R@10   | R@100  | MRR@10 |`);
console.log(`|${'-'.repeat(54)}|--------:|-------:|-------:|-------:|`);
for (const r of rows) console.log(r);
console.log(
  `\nDefault hybrid weights: cosine ${wd.cosine}, lexical ${wd.lexical}, recency ${wd.recency}, importance ${wd.importance}. Recency and importance carry no\n` +
    `information here (every doc has importance 0.5 and was stored within the same minute), so they only shift scores.\n` +
    `Tuning grid on ${train.queries.size} SciFact train claims (replica pools; cosine = 1 − lexical, recency/importance 0): ` +
    grid.map((g) => `${g.lexical}→${g.train_ndcg10.toFixed(4)}`).join(', ') +
    `; chose lexical ${best.lexical}. (Train, whole corpus: exact cosine ${trainOnly.semantic.toFixed(4)}, BM25 ${trainOnly.bm25.toFixed(4)}.)`,
);
console.log(
  `Pool check: store lexical-only vs BM25 reference top-10 overlap ${diagnostics.lexical_vs_bm25_reference_overlap10}, top-100 ${diagnostics.lexical_vs_bm25_reference_overlap100}; ` +
    `store vs replica top-10 overlap: lexical ${diagnostics.lexical_vs_replica_overlap10}, weighted ${diagnostics.hybrid_weighted_vs_replica_overlap10}, RRF ${diagnostics.hybrid_rrf_vs_replica_overlap10}, tuned ${diagnostics.hybrid_tuned_vs_replica_overlap10}.\n` +
    `  ${capStats.reference_top10_outside_pool_and_candidates} of the BM25 reference's top-10 docs (${capStats.reference_top100_outside_pool_and_candidates} of its top-100) are in neither the cosine pool nor the lexical top.\n` +
    `  The lexical top holds ${Math.round(capStats.candidate_rows_read_mean)} rows per query on average (max ${capStats.candidate_rows_read_max}; limit ${candidateLimit}) out of ${Math.round(capStats.posting_keys_read_mean)} posting entries of the query terms.`,
);
console.log(`\nWhat-ifs on the replica pool (test claims; diagnostics, not tuning):`);
for (const [key, m] of Object.entries(whatIf)) {
  console.log(`| ${WHAT_IFS[key]!.label.padEnd(62)} | ${m.ndcg10.toFixed(4)} | ${m.recall10.toFixed(4)} | ${m.recall100.toFixed(4)} | ${m.mrr10.toFixed(4)} |`);
}
console.log(`Semantic check: store (HNSW) vs exact cosine top-10 overlap ${diagnostics.semantic_vs_exact_overlap10}, top-100 ${diagnostics.semantic_vs_exact_overlap100}.`);
console.log(`\nSTS-B Spearman (cosine vs gold): test ${stsb.test_spearman} (${stsb.test_pairs} pairs), dev ${stsb.dev_spearman} (${stsb.dev_pairs} pairs); ${stsb.malformed_rows} malformed rows skipped.`);
console.log('\nTargets:');
console.log(
  `  hybrid nDCG@10 ≥ best single (${bestSingle.toFixed(4)}) + 0.02: weighted ${targets.hybrid_weighted_beats_best_single_by_0_02 ? 'MET' : 'missed'} (${scifact.hybrid_weighted.ndcg10.toFixed(4)}), ` +
    `RRF ${targets.hybrid_rrf_beats_best_single_by_0_02 ? 'MET' : 'missed'} (${scifact.hybrid_rrf.ndcg10.toFixed(4)}), tuned ${targets.hybrid_tuned_beats_best_single_by_0_02 ? 'MET' : 'missed'} (${scifact.hybrid_tuned.ndcg10.toFixed(4)})`,
);
console.log(
  `  corpus BM25 within 0.02 of published ${PUBLISHED_BM25}: store lexical-only ${targets.store_lexical_within_0_02_of_published_bm25 ? 'MET' : 'missed'} (${scifact.lexical.ndcg10.toFixed(4)}), ` +
    `reference ${targets.bm25_reference_within_0_02_of_published_bm25 ? 'MET' : 'missed'} (${scifact.bm25_reference.ndcg10.toFixed(4)})`,
);
const timing = {
  total: round(seconds(tStart), 1),
  embed: round(embedSeconds, 1),
  ingest: round(ingestSeconds, 1),
  recall_test: round(recallSeconds, 1),
  replica_pools: round(replicaSeconds, 1),
  tune_train: round(tuneSeconds, 1),
  recall_ms_mean: round(recallMs / Math.max(recallCount, 1), 1),
};
console.log(`\nTiming: ${JSON.stringify(timing)}; embeddings: ${JSON.stringify(embedStats)}\n`);

await store.close();
(await realEmbedder)?.dispose();

console.log(
  `Relevance verdicts on the ${claimsConfidence.claims} test claims (${USE_LITE_ID}): correct top-1 ${claimsConfidence.correct_top1}, of which strong or weak ${claimsConfidence.correct_top1_weak_or_strong} (strong ${claimsConfidence.correct_top1_strong}); ` +
    `with the cited abstracts taken out, top 10 all none ${claimsConfidence.unanswerable_all_none}, top-1 none ${claimsConfidence.unanswerable_top1_none}.\n`,
);

// Issue #14: ranking and verdicts on the agent-memory set, and the contradiction patterns, with
// every embedder available (cheap: a few hundred sentences each).
const agentReports: EmbedderReport[] = [];
const conversational: Record<string, Record<string, LocomoReport>> = {};
const reworded: Record<string, RewordedReport> = {};
const named: Record<string, NamedReport> = {};
const pairCosines: Record<string, (older: string, newer: string) => number> = {};
const handPairs = loadHandWritten();
// Every embedder in one pass: done once, by the first embedder's run (as the contradiction detector).
for (const embedder of SKIP_CONTRADICTION ? [] : benchEmbedders()) {
  if (!embedder.available()) {
    log(`  agent-memory eval: ${embedder.key} not provisioned (npm run models), skipped`);
    continue;
  }
  agentReports.push(await agentMemoryEval(embedder));
  // Issues #26 and #27: conversations (LoCoMo dev), questions in other words, changed facts.
  conversational[embedder.key] = await locomoEval(embedder);
  reworded[embedder.key] = await rewordedEval(embedder);
  named[embedder.key] = (await namedEval(embedder, { default: {} })).default!;
  const texts = [...new Set(handPairs.flatMap((p) => [p.older, p.newer]))];
  const vectors = new Map((await cachedEmbed(embedder, 'conflict-pairs', texts, 'passage')).map((v, i) => [texts[i]!, v]));
  pairCosines[embedder.key] = (a, b) => cosine(vectors.get(a)!, vectors.get(b)!);
  await embedder.dispose();
}
if (agentReports.length > 0) {
  console.log('Agent-memory set (bench/data/agent-memory.json), recall k = 10 (dev / test / all):\n');
  console.log(agentTable(agentReports));
}
for (const [key, reports] of Object.entries(conversational)) console.log(`LoCoMo development split (bench/locomo.ts), ${locomoTable(key, reports)}\n`);
for (const [key, r] of Object.entries(reworded)) {
  console.log(`Reworded questions (bench/reworded.ts), ${key}, report half (tuning half in the JSON):`);
  for (const size of ['10', '100', '1000'] as const) {
    const f = r[size].report;
    console.log(`  ${size.padStart(4)} memories: right top-1 ${f.top1}, right and badged ${f.top1_badged} (of right ${f.badged_given_right}), unanswerable only none ${f.unanswerable_all_none}`);
  }
}
for (const [key, r] of Object.entries(named)) {
  console.log(`Named things (bench/names.ts), ${key}, report half (tuning half in the JSON):`);
  for (const size of ['80', '1000'] as const) console.log(`  ${size.padStart(4)} memories: top-1 ${r[size].report.top1}, R@3 ${r[size].report.recall3}, MRR ${r[size].report.mrr}`);
}
const changed = SKIP_CONTRADICTION ? null : await runChangedValues(DATA);
if (changed) {
  console.log('Changed facts (bench/changed-values.ts), conflict class P / R and changed values called duplicates:');
  for (const set of ['tuning', 'heldout'] as const) {
    for (const [key, r] of Object.entries(changed[set])) console.log(`  ${set.padEnd(7)} ${key.padEnd(9)} P ${r.byClass.conflict.precision} R ${r.byClass.conflict.recall}, duplicates ${r.changedCalledDuplicate}`);
  }
}
const everyday = SKIP_CONTRADICTION ? null : await runEverydayChanges();
if (everyday) console.log(`Everyday and work changes (bench/everyday-changes.ts; the rule tuned on the tune half):\n${everydayTable(everyday)}`);
const judgeRecall = SKIP_CONTRADICTION ? null : await runJudgeRecall();
if (judgeRecall) console.log(judgeRecallTable(judgeRecall));
for (const r of agentReports) console.log(`  ${r.embedder}: unanswerable with a weak/strong hit ${JSON.stringify(r.misses.false_matches)}; correct top-1 judged none ${JSON.stringify(r.misses.unflagged_answers)}`);
const patterns = SKIP_CONTRADICTION ? null : runPatternsEval(DATA, pairCosines);

// The contradiction detector (no model involved): SICK TEST and SciFact dev, tuned on train only.
const contradiction = SKIP_CONTRADICTION ? null : runContradictionEval(DATA);
const prf = (p: { precision: number; recall: number; f1: number }) => `P ${p.precision.toFixed(3)}  R ${p.recall.toFixed(3)}  F1 ${p.f1.toFixed(3)}`;
if (contradiction) {
  console.log('Contradiction detector (positive class CONTRADICTION):');
  console.log(`  SICK TEST        ${prf(contradiction.sick.test)}   (target precision ≥ 0.80: ${contradiction.sick.test.precision >= 0.8 ? 'MET' : 'missed'})`);
  console.log(`  SciFact dev      ${prf(contradiction.scifact.dev)}`);
  console.log(`  plain negation parity, SICK TEST ${prf(contradiction.baselineParity.sickTest)}`);
}
if (patterns) {
  console.log('Conflict patterns of the store (negation with a content check, swapped alternatives, changed values; positive class contradiction or update):');
  console.log(`  hand-written agent pairs (${patterns.handWritten.n}): ${prf(patterns.handWritten)}, kind right ${patterns.handWritten.kind_accuracy}   (targets P ≥ 0.85, R ≥ 0.60: ${patterns.handWritten.precision >= 0.85 && patterns.handWritten.recall >= 0.6 ? 'MET' : 'missed'})`);
  console.log(`    before: reference negation parity ${prf(patterns.handWrittenBefore.parity)}; previous detector ${prf(patterns.handWrittenBefore.detector)}`);
  for (const [key, m] of Object.entries(patterns.gated ?? {})) console.log(`    as the store sees them with ${key} (cosine ≥ 0.5): ${prf(m)}`);
  console.log(`  SICK TEST ${prf(patterns.sick.test)} (target P ≥ 0.80: ${patterns.sick.test.precision >= 0.8 ? 'MET' : 'missed'}); SICK TRAIN ${prf(patterns.sick.train)}\n`);
}
console.log(
  JSON.stringify({
    machine: machine(),
    date: new Date().toISOString(),
    embedder: USE_LITE_ID,
    scifact,
    stsb,
    ...(contradiction
      ? {
          contradiction: {
            sick_test: contradiction.sick.test,
            scifact_dev: contradiction.scifact.dev,
            sick_train_trial: contradiction.sick.trainTrial,
            baseline_parity_sick_test: contradiction.baselineParity.sickTest,
            config: contradiction.tuning.chosen,
          },
        }
      : {}),
    scifact_claims_confidence: claimsConfidence,
    ...(patterns ? { agent_memory: agentReports, conflict_patterns: patterns, locomo_dev: conversational, reworded, named_things: named, changed_values: changed, everyday_changes: everyday, judge_recall: judgeRecall } : {}),
    targets,
    diagnostics,
    replica_what_if: whatIf,
    timing_s: timing.total,
    timing,
    embeddings: embedStats,
  }),
);
