/**
 * Conversational recall on LoCoMo's development split (issue #26): `../shared/data/locomo-dev/`,
 * two long multi-session conversations (conv-26, conv-30: 788 turns, 304 questions with gold
 * evidence turns). The other eight conversations of the set are a held-out test this project does
 * not have; everything here is tuned on these two and reported as development figures.
 *
 * Recipe (the data README's): one store per conversation, one memory per turn with the text
 * `(<session date>) <speaker> said, "<text>"` (+ ` [shares <caption>]`) and the session's date as
 * its `createdAt`; the store's clock a day after the last session. Each question recalls the top
 * 10 (`touch: false`). Turn-level Recall@k = the share of a question's evidence turns in the top k
 * (ids normalised: split on `;` and spaces, `D:11:26` → `D11:26`, leading zeros dropped, ids naming
 * no turn dropped); nDCG@10 with binary gains; MRR@10 of the first evidence turn. The session-level
 * share (labelled as such) counts an evidence turn as found when any turn of its session is in
 * the top 10. Per category: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial.
 *
 * The embedder's vectors come from the bench cache (bench/embedders.ts), so the real store path
 * runs without the model. Run: `npx tsx bench/locomo.ts [--embedder minilm] [--configs a,b]`.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RecallOptions } from '../src/core/types.ts';
import { createMemory } from '../src/local.ts';
import { defaultDataDir } from './contradiction.ts';
import { benchEmbedders, cachedEmbed, servedEmbedder, type BenchEmbedder } from './embedders.ts';

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface Qa {
  question: string;
  evidence?: string[];
  category: number;
}
interface Conversation {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Qa[];
}

export interface LocomoTurn {
  id: string;
  text: string;
  createdAt: number;
  session: number;
}
export interface LocomoQuestion {
  conversation: string;
  question: string;
  evidence: string[];
  category: number;
}
export interface LocomoConversation {
  id: string;
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" → Unix seconds (UTC). */
export function parseSessionDate(text: string): number {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})$/i.exec(text.trim());
  if (!m) throw new Error(`locomo: unreadable session date ${JSON.stringify(text)}`);
  const month = MONTHS.indexOf(m[5]!.toLowerCase());
  if (month < 0) throw new Error(`locomo: unknown month in ${JSON.stringify(text)}`);
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2])) / 1000;
}

/** Evidence ids as the README says: split on `;`/spaces, `D:11:26` → `D11:26`, no leading zeros. */
export function normaliseEvidence(ids: readonly string[], known: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  for (const raw of ids) {
    for (const part of raw.split(/[;\s]+/)) {
      const m = /^D:?0*(\d+):0*(\d+)$/.exec(part.trim());
      if (!m) continue;
      const id = `D${m[1]}:${m[2]}`;
      if (known.has(id)) out.add(id);
    }
  }
  return [...out];
}

export function loadLocomo(dataDir = defaultDataDir()): LocomoConversation[] {
  const raw = JSON.parse(readFileSync(path.join(dataDir, 'locomo-dev', 'locomo-dev.json'), 'utf8')) as Conversation[];
  return raw.map((c) => {
    const turns: LocomoTurn[] = [];
    for (const [key, value] of Object.entries(c.conversation)) {
      const m = /^session_(\d+)$/.exec(key);
      if (!m || !Array.isArray(value)) continue;
      const session = Number(m[1]);
      const date = String(c.conversation[`session_${session}_date_time`]);
      const createdAt = parseSessionDate(date);
      for (const t of value as Turn[]) {
        const caption = t.blip_caption ? ` [shares ${t.blip_caption}]` : '';
        turns.push({ id: t.dia_id, text: `(${date}) ${t.speaker} said, "${t.text}"${caption}`.trim(), createdAt, session });
      }
    }
    const known = new Set(turns.map((t) => t.id));
    const questions = c.qa
      .map((q) => ({ conversation: c.sample_id, question: q.question.trim(), evidence: normaliseEvidence(q.evidence ?? [], known), category: q.category }))
      .filter((q) => q.evidence.length > 0);
    return { id: c.sample_id, turns, questions };
  });
}

export interface LocomoFigures {
  questions: number;
  recall5: number;
  recall10: number;
  ndcg10: number;
  mrr10: number;
  /** Session-level: an evidence turn counts when any turn of its session is in the top 10. */
  session_recall10: number;
}

interface Ranked {
  q: LocomoQuestion;
  ids: string[];
}

function figures(rows: readonly Ranked[]): LocomoFigures {
  let r5 = 0;
  let r10 = 0;
  let ndcg = 0;
  let mrr = 0;
  let sess = 0;
  for (const { q, ids } of rows) {
    const gold = new Set(q.evidence);
    const inTop = (k: number): number => ids.slice(0, k).filter((id) => gold.has(id)).length / gold.size;
    r5 += inTop(5);
    r10 += inTop(10);
    let dcg = 0;
    ids.slice(0, 10).forEach((id, i) => {
      if (gold.has(id)) dcg += 1 / Math.log2(i + 2);
    });
    let ideal = 0;
    for (let i = 0; i < Math.min(gold.size, 10); i++) ideal += 1 / Math.log2(i + 2);
    ndcg += dcg / ideal;
    const first = ids.slice(0, 10).findIndex((id) => gold.has(id));
    if (first >= 0) mrr += 1 / (first + 1);
    const sessions = new Set(ids.slice(0, 10).map((id) => id.split(':')[0]));
    sess += q.evidence.filter((id) => sessions.has(id.split(':')[0])).length / gold.size;
  }
  const n = Math.max(rows.length, 1);
  const r = (x: number): number => Number((x / n).toFixed(4));
  return { questions: rows.length, recall5: r(r5), recall10: r(r10), ndcg10: r(ndcg), mrr10: r(mrr), session_recall10: r(sess) };
}

export interface LocomoReport {
  all: LocomoFigures;
  byCategory: Record<string, LocomoFigures>;
  /** Median and 99th percentile of the recall calls, in ms (Node, fake-indexeddb). */
  latency: { p50: number; p99: number };
}

/** The configurations measured: the default recall and each explicit mode. */
export const LOCOMO_CONFIGS: Record<string, RecallOptions> = {
  default: {},
  semantic: { mode: 'semantic' },
  'hybrid-pool': { mode: 'hybrid', lexicalIndex: 'pool' },
  'hybrid-corpus': { mode: 'hybrid', lexicalIndex: 'corpus' },
};

const NO_NEW_SIGNALS = { entity: 0, time: 0, phrase: 0, context: 0 };
/** The default with its conversational signals taken away, then added back one at a time (the gain of each). */
export const SIGNAL_ABLATIONS: Record<string, RecallOptions> = {
  semantic: { mode: 'semantic' },
  'corpus, no new signals': { weights: NO_NEW_SIGNALS },
  '+ entity (0.02)': { weights: { ...NO_NEW_SIGNALS, entity: 0.02 } },
  '+ time (0.1)': { weights: { ...NO_NEW_SIGNALS, time: 0.1 } },
  '+ context (0.5)': { weights: { ...NO_NEW_SIGNALS, context: 0.5 } },
  '+ phrase (0.2)': { weights: { ...NO_NEW_SIGNALS, phrase: 0.2 } },
  'default (all)': {},
};

/** The embedder's vectors for every turn (`p:<text>`) and question (`q:<text>`), from the bench cache. */
export async function locomoVectors(embedder: BenchEmbedder, data: readonly LocomoConversation[]): Promise<Map<string, Float32Array>> {
  const passages = data.flatMap((c) => c.turns.map((t) => t.text));
  const queries = data.flatMap((c) => c.questions.map((q) => q.question));
  const vectors = new Map<string, Float32Array>();
  (await cachedEmbed(embedder, 'locomo-turns', passages, 'passage')).forEach((v, i) => vectors.set(`p:${passages[i]}`, v));
  (await cachedEmbed(embedder, 'locomo-questions', queries, 'query')).forEach((v, i) => vectors.set(`q:${queries[i]}`, v));
  return vectors;
}

/** Recalls every question of every conversation under each configuration. */
export async function locomoEval(
  embedder: BenchEmbedder,
  configs: Record<string, RecallOptions> = LOCOMO_CONFIGS,
  data = loadLocomo(),
): Promise<Record<string, LocomoReport>> {
  const vectors = await locomoVectors(embedder, data);
  const ranked: Record<string, Ranked[]> = Object.fromEntries(Object.keys(configs).map((k) => [k, []]));
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(configs).map((k) => [k, []]));
  for (const conv of data) {
    const now = Math.max(...conv.turns.map((t) => t.createdAt)) + 86_400;
    const store = await createMemory({
      name: `locomo-${embedder.key}-${conv.id}-${process.pid}-${Date.now()}`,
      embedder: servedEmbedder(embedder, vectors, 'locomo'),
      index: 'exact',
      clock: { now: () => now },
    });
    try {
      const stored = await store.rememberMany(conv.turns.map((t) => ({ text: t.text, createdAt: t.createdAt })), { batchSize: 500 });
      const idOf = new Map(stored.map((r, i) => [r.memory.id, conv.turns[i]!.id]));
      for (const [name, options] of Object.entries(configs)) {
        for (const q of conv.questions) {
          const t0 = performance.now();
          const hits = await store.recall(q.question, { k: 10, touch: false, ...options });
          times[name]!.push(performance.now() - t0);
          ranked[name]!.push({ q, ids: hits.map((h) => idOf.get(h.memory.id) ?? '?') });
        }
      }
    } finally {
      await store.close();
    }
  }
  const out: Record<string, LocomoReport> = {};
  for (const name of Object.keys(configs)) {
    const rows = ranked[name]!;
    const byCategory: Record<string, LocomoFigures> = {};
    for (const cat of [1, 2, 3, 4, 5]) byCategory[String(cat)] = figures(rows.filter((r) => r.q.category === cat));
    const sorted = [...times[name]!].sort((a, b) => a - b);
    const pct = (p: number): number => Number(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(2));
    out[name] = { all: figures(rows), byCategory, latency: { p50: pct(0.5), p99: pct(0.99) } };
  }
  return out;
}

export function locomoTable(key: string, reports: Record<string, LocomoReport>): string {
  const lines = [`${key}: turn-level R@5 R@10 nDCG@10 MRR@10 | session-level R@10 | R@10 by category 1 2 3 4 5 | p50/p99 ms`];
  for (const [name, r] of Object.entries(reports)) {
    const f = r.all;
    const cats = [1, 2, 3, 4, 5].map((c) => r.byCategory[String(c)]!.recall10.toFixed(3)).join(' ');
    lines.push(
      `  ${name.padEnd(14)} ${f.recall5.toFixed(3)} ${f.recall10.toFixed(3)} ${f.ndcg10.toFixed(3)} ${f.mrr10.toFixed(3)} | ${f.session_recall10.toFixed(3)} | ${cats} | ${r.latency.p50}/${r.latency.p99}`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const arg = (flag: string): string | undefined => (process.argv.indexOf(flag) > 0 ? process.argv[process.argv.indexOf(flag) + 1] : undefined);
  const only = arg('--embedder');
  const pick = arg('--configs')?.split(',');
  const all = { ...LOCOMO_CONFIGS, ...SIGNAL_ABLATIONS };
  const configs = process.argv.includes('--ablations') ? SIGNAL_ABLATIONS : pick ? Object.fromEntries(pick.map((k) => [k, all[k]!])) : LOCOMO_CONFIGS;
  const out: Record<string, Record<string, LocomoReport>> = {};
  for (const embedder of benchEmbedders()) {
    if (!embedder.available() || (only && embedder.key !== only)) continue;
    out[embedder.key] = await locomoEval(embedder, configs);
    console.log(locomoTable(embedder.key, out[embedder.key]!));
    await embedder.dispose();
  }
  console.log(JSON.stringify(out));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) void main();
