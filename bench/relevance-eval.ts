/**
 * Ranking and confidence on the hand-written agent-memory set (bench/data/agent-memory.json),
 * with every embedder available, before and after issue #14. Part of `npm run eval`; alone:
 * `npx tsx bench/relevance-eval.ts [--embedder KEY]` (a table, then one JSON line).
 *
 * For each embedder, the memories are remembered into a real store (fake-indexeddb, exact
 * index), each at its own time (`ageDays` before a fixed now: the older ones stand for an
 * imported archive, which keeps its original times), and every query is recalled with k = 10,
 * `touch: false`:
 * - after: the store as it is (hybrid = the relevance-first weighted fusion with the new lexical
 *   terms; semantic; lexical only), verdicts from the store's calibrated relevance judge;
 * - before: the same cosine pool (the store's k·overfetch = 40 nearest) scored by the previous
 *   code (bench/legacy/scoring.ts: AI-Houkai's sum, the old terms), with the previous verdict
 *   (bench/legacy/confidence.ts: cut-offs learned from random pairs of the store's own vectors).
 * Metrics, on the dev half (queries alternate dev/test in file order; choices were made on dev),
 * the test half and all: top-1 accuracy and MRR@10 over the answerable queries, the rank of the
 * office memory for "where is the office", the share of correct top-1 hits judged strong or weak
 * (target ≥ 0.85), and the share of unanswerable queries whose hits are all judged none (≥ 0.90).
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cosine } from '../src/core/ops/recall-pipeline.ts';
import type { Embedder } from '../src/core/ports.ts';
import type { Memory, MemoryType, RecallHit, RecallOptions } from '../src/core/types.ts';
import { createMemory } from '../src/local.ts';
import { ConfidenceCalibrator } from './legacy/confidence.ts';
import { scoreCandidates as legacyScore } from './legacy/scoring.ts';
import { benchEmbedders, cachedEmbed, servedEmbedder, type BenchEmbedder } from './embedders.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NOW = 1_795_000_000;
const K = 10;
const OVERFETCH = 4;

interface AgentMemory {
  id: string;
  text: string;
  ageDays: number;
  importance: number;
  type?: MemoryType;
}
interface AgentQuery {
  id: string;
  text: string;
  relevant: string[];
}
export interface AgentSet {
  memories: AgentMemory[];
  queries: (AgentQuery & { split: 'dev' | 'test' })[];
}

export function loadAgentSet(file = path.join(REPO, 'bench', 'data', 'agent-memory.json')): AgentSet {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { memories: AgentMemory[]; queries: AgentQuery[] };
  let answerable = 0;
  let unanswerable = 0;
  const queries = raw.queries.map((q) => ({ ...q, split: ((q.relevant.length ? answerable++ : unanswerable++) % 2 ? 'test' : 'dev') as 'dev' | 'test' }));
  return { memories: raw.memories, queries };
}

interface Outcome {
  query: AgentSet['queries'][number];
  /** Memory ids best first, with their verdicts. */
  hits: { id: string; confidence: string }[];
}

export interface SetFigures {
  answerable: number;
  unanswerable: number;
  top1: number;
  mrr10: number;
  /** Share of correct top-1 hits judged strong or weak. */
  correct_top1_weak_or_strong: number;
  correct_top1_strong: number;
  /** Share of unanswerable queries whose hits are all judged none. */
  unanswerable_all_none: number;
}

function figures(outcomes: Outcome[]): SetFigures {
  const answerable = outcomes.filter((o) => o.query.relevant.length > 0);
  const unanswerable = outcomes.filter((o) => o.query.relevant.length === 0);
  let top1 = 0;
  let mrr = 0;
  let correct = 0;
  let correctOk = 0;
  let correctStrong = 0;
  for (const o of answerable) {
    const rank = o.hits.findIndex((h) => o.query.relevant.includes(h.id));
    if (rank === 0) {
      top1++;
      correct++;
      if (o.hits[0]!.confidence !== 'none') correctOk++;
      if (o.hits[0]!.confidence === 'strong') correctStrong++;
    }
    if (rank >= 0) mrr += 1 / (rank + 1);
  }
  const allNone = unanswerable.filter((o) => o.hits.every((h) => h.confidence === 'none')).length;
  const r = (x: number) => Number(x.toFixed(4));
  return {
    answerable: answerable.length,
    unanswerable: unanswerable.length,
    top1: r(top1 / answerable.length),
    mrr10: r(mrr / answerable.length),
    correct_top1_weak_or_strong: r(correctOk / Math.max(correct, 1)),
    correct_top1_strong: r(correctStrong / Math.max(correct, 1)),
    unanswerable_all_none: r(allNone / Math.max(unanswerable.length, 1)),
  };
}

const bySplit = (outcomes: Outcome[]) => ({
  dev: figures(outcomes.filter((o) => o.query.split === 'dev')),
  test: figures(outcomes.filter((o) => o.query.split === 'test')),
  all: figures(outcomes),
});

export interface EmbedderReport {
  embedder: string;
  id: string;
  after: { hybrid: ReturnType<typeof bySplit>; semantic: ReturnType<typeof bySplit>; lexical: ReturnType<typeof bySplit> };
  before: { hybrid: ReturnType<typeof bySplit> };
  office_rank: { before: number; after: number };
  /** Unanswerable queries that got a strong/weak hit, and correct top-1 hits judged none (after, hybrid). */
  misses: { false_matches: string[]; unflagged_answers: string[] };
  stats_confidence: unknown;
}

/** The agent-memory evaluation for one embedder. */
export async function agentMemoryEval(embedder: BenchEmbedder, set = loadAgentSet()): Promise<EmbedderReport> {
  const texts = set.memories.map((m) => m.text);
  const queries = set.queries.map((q) => q.text);
  const vectors = new Map<string, Float32Array>();
  (await cachedEmbed(embedder, 'agent-memories', texts, 'passage')).forEach((v, i) => vectors.set(`p:${texts[i]}`, v));
  (await cachedEmbed(embedder, 'agent-queries', queries, 'query')).forEach((v, i) => vectors.set(`q:${queries[i]}`, v));
  // The store asks for queries with input 'query' (a query/passage model embeds them differently).
  const served = servedEmbedder(embedder, vectors, 'agent eval');
  let t = NOW;
  const store = await createMemory({
    name: `agent-eval-${embedder.key}-${process.pid}-${Date.now()}`,
    embedder: served,
    index: 'exact',
    clock: { now: () => t },
  });
  const idOf = new Map<string, string>();
  const memoryOf = new Map<string, Memory>();
  for (const m of set.memories) {
    t = NOW - m.ageDays * 86_400 - 3_600;
    const r = await store.remember(m.text, { importance: m.importance, ...(m.type ? { type: m.type } : {}), onConflict: 'ignore' });
    idOf.set(r.memory.id, m.id);
    memoryOf.set(m.id, r.memory);
  }
  t = NOW;

  const run = async (options: RecallOptions): Promise<Outcome[]> => {
    const out: Outcome[] = [];
    for (const query of set.queries) {
      const hits: RecallHit[] = await store.recall(query.text, { k: K, touch: false, ...options });
      out.push({ query, hits: hits.map((h) => ({ id: idOf.get(h.memory.id)!, confidence: h.confidence ?? 'none' })) });
    }
    return out;
  };
  const hybrid = await run({ mode: 'hybrid' });
  const semantic = await run({ mode: 'semantic' });
  const lexical = await run({ mode: 'hybrid', weights: { cosine: 0, lexical: 1, recency: 0, importance: 0 } });
  const statsConfidence = (await store.stats()).confidence;

  // Before: the same k·overfetch nearest memories, the previous scoring and verdicts.
  const all = set.memories.map((m) => ({ id: m.id, memory: memoryOf.get(m.id)!, vector: vectors.get(`p:${m.text}`)! }));
  const legacy = new ConfidenceCalibrator(embedder.id);
  const sims: number[] = [];
  const sample = all.slice(0, 64);
  for (let i = 0; i < sample.length; i++) for (let j = i + 1; j < sample.length; j++) sims.push(cosine(sample[i]!.vector, sample[j]!.vector));
  legacy.observePairwise(sims);
  const before: Outcome[] = [];
  for (const query of set.queries) {
    const qv = vectors.get(`q:${query.text}`)!;
    const pool = all
      .map((m) => ({ memory: m.memory, cosine: cosine(qv, m.vector) }))
      .sort((a, b) => b.cosine - a.cosine)
      .slice(0, K * OVERFETCH);
    legacy.observeRecall(pool.map((p) => p.cosine));
    const hits = legacyScore(pool, query.text, { mode: 'hybrid', now: NOW, confidence: legacy.thresholds() }).slice(0, K);
    before.push({ query, hits: hits.map((h) => ({ id: idOf.get(h.memory.id)!, confidence: h.confidence ?? 'none' })) });
  }
  await store.close();

  const officeRank = (outcomes: Outcome[]): number => {
    const o = outcomes.find((x) => x.query.id === 'q-office')!;
    const r = o.hits.findIndex((h) => h.id === 'office');
    return r < 0 ? -1 : r + 1;
  };
  const falseMatches = hybrid
    .filter((o) => o.query.relevant.length === 0 && o.hits.some((h) => h.confidence !== 'none'))
    .map((o) => `${o.query.id} → ${o.hits.find((h) => h.confidence !== 'none')!.id}`);
  const unflagged = hybrid
    .filter((o) => o.query.relevant.length > 0 && o.query.relevant.includes(o.hits[0]?.id ?? '') && o.hits[0]!.confidence === 'none')
    .map((o) => o.query.id);
  return {
    embedder: embedder.key,
    id: embedder.id,
    after: { hybrid: bySplit(hybrid), semantic: bySplit(semantic), lexical: bySplit(lexical) },
    before: { hybrid: bySplit(before) },
    office_rank: { before: officeRank(before), after: officeRank(hybrid) },
    misses: { false_matches: falseMatches, unflagged_answers: unflagged },
    stats_confidence: statsConfidence,
  };
}

/** A markdown table of the reports. */
export function agentTable(reports: EmbedderReport[]): string {
  const lines = [
    '| embedder | ranking | top-1 (dev / test / all) | MRR@10 (all) | office rank | correct top-1 strong or weak (dev / test / all) | unanswerable only none (dev / test / all) |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  const f = (x: number) => x.toFixed(3);
  const trio = (s: ReturnType<typeof bySplit>, key: keyof SetFigures) => `${f(s.dev[key])} / ${f(s.test[key])} / ${f(s.all[key])}`;
  for (const r of reports) {
    const rows: [string, ReturnType<typeof bySplit>, number | string][] = [
      ['before: hybrid (AI-Houkai sum, old terms, old verdict)', r.before.hybrid, r.office_rank.before],
      ['after: hybrid (relevance first)', r.after.hybrid, r.office_rank.after],
      ['after: semantic', r.after.semantic, ''],
      ['after: lexical only', r.after.lexical, ''],
    ];
    for (const [name, s, office] of rows) {
      lines.push(`| ${r.embedder} | ${name} | ${trio(s, 'top1')} | ${f(s.all.mrr10)} | ${office} | ${trio(s, 'correct_top1_weak_or_strong')} | ${trio(s, 'unanswerable_all_none')} |`);
    }
  }
  return lines.join('\n');
}


async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const only = args.includes('--embedder') ? args[args.indexOf('--embedder') + 1] : undefined;
  const reports: EmbedderReport[] = [];
  for (const embedder of benchEmbedders()) {
    if (only && embedder.key !== only) continue;
    if (!embedder.available()) {
      process.stderr.write(`relevance eval: ${embedder.key} is not provisioned (npm run models), skipped\n`);
      continue;
    }
    reports.push(await agentMemoryEval(embedder));
    await embedder.dispose();
  }
  console.log(agentTable(reports));
  for (const r of reports) console.log(`${r.embedder}: false matches ${JSON.stringify(r.misses.false_matches)}; correct answers judged none ${JSON.stringify(r.misses.unflagged_answers)}`);
  console.log(JSON.stringify({ agent_memory: reports }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
