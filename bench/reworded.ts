/**
 * Reworded questions (issue #27): does the right memory come first, with an honest badge, when a
 * question uses other words than the memory — and do questions the store cannot answer stay
 * `none` — in stores of 10, 100 and 1,000 memories?
 *
 * Data: `bench/data/reworded-questions.json` (117 facts, 121 reworded questions, 40 unanswerable).
 * Stores: size 10 — the facts in groups of about ten; 100 — the facts in two stores, topped up
 * with other facts of the set's; 1,000 — every fact plus STS-B dev sentences as other memories.
 * Each answerable question is asked in the store holding its answer; each unanswerable one in
 * every store of the size. The store is the real one (fake-indexeddb, exact index, the
 * embedder's vectors served from the bench cache), recall with k = 10, `touch: false`, default
 * mode and hybrid.
 *
 * Split: a question belongs to the tuning half when the last digit of its id's number is even,
 * else to the report half; calibration choices are made on the tuning half only.
 * Figures per embedder, size and half: right top-1; right top-1 judged strong or weak (over all
 * answerable questions, and over those with a right top-1); unanswerable with every hit `none`;
 * a wrong top-1 judged strong.
 *
 * Run: `npx tsx bench/reworded.ts [--mode hybrid] [--embedder minilm]` (a table, then JSON).
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RecallOptions } from '../src/core/types.ts';
import { createMemory, type LocalMemory } from '../src/local.ts';
import { parseStsb } from './datasets.ts';
import { defaultDataDir } from './contradiction.ts';
import { benchEmbedders, cachedEmbed, servedEmbedder, type BenchEmbedder } from './embedders.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Question {
  id: string;
  text: string;
  answers: string[];
}
export interface RewordedSet {
  facts: { id: string; text: string }[];
  questions: Question[];
}

export function loadReworded(): RewordedSet {
  return JSON.parse(readFileSync(path.join(REPO, 'bench', 'data', 'reworded-questions.json'), 'utf8')) as RewordedSet;
}

export const half = (q: Pick<Question, 'id'>): 'tuning' | 'report' => (Number(q.id.replace(/\D/g, '').slice(-1)) % 2 === 0 ? 'tuning' : 'report');

/** Deterministic shuffle (a small LCG): the stores are the same every run. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The stores of one size: each a list of memory texts, the fact ids it holds. */
export function buildStores(set: RewordedSet, size: 10 | 100 | 1000, fillers: readonly string[]): { texts: string[]; facts: Set<string> }[] {
  const facts = shuffled(set.facts, 7);
  if (size === 1000) return [{ texts: [...facts.map((f) => f.text), ...fillers.slice(0, 1000 - facts.length)], facts: new Set(facts.map((f) => f.id)) }];
  const groups: (typeof facts)[] = [];
  const per = size === 10 ? 10 : 100;
  for (let i = 0; i < facts.length; i += per) groups.push(facts.slice(i, i + per));
  // The last group is topped up with facts of the others (which answer nothing asked there) and fillers.
  return groups.map((g, gi) => {
    const others = facts.filter((f) => !g.includes(f)).slice(0, per - g.length);
    const texts = [...g, ...others].map((f) => f.text);
    if (texts.length < per) texts.push(...fillers.slice(gi * per, gi * per + per - texts.length));
    return { texts, facts: new Set(g.map((f) => f.id)) };
  });
}

export interface Figures {
  answerable: number;
  unanswerable: number;
  top1: number;
  /** Right top-1 judged strong or weak, over all answerable questions. */
  top1_badged: number;
  /** The same over the questions with a right top-1. */
  badged_given_right: number;
  unanswerable_all_none: number;
  /** A wrong top-1 answer (a memory that is not the answer) judged strong, over the answerable questions with a wrong top-1. */
  wrong_top1_strong: number;
}

interface Outcome {
  q: Question;
  top: string | null;
  topConfidence: string;
  allNone: boolean;
}

function figures(outcomes: readonly Outcome[]): Figures {
  const answerable = outcomes.filter((o) => o.q.answers.length > 0);
  const unanswerable = outcomes.filter((o) => o.q.answers.length === 0);
  const right = answerable.filter((o) => o.top !== null && o.q.answers.includes(o.top));
  const badged = right.filter((o) => o.topConfidence !== 'none');
  const wrong = answerable.filter((o) => o.top !== null && !o.q.answers.includes(o.top));
  const r = (x: number): number => Number(x.toFixed(3));
  return {
    answerable: answerable.length,
    unanswerable: unanswerable.length,
    top1: r(right.length / Math.max(answerable.length, 1)),
    top1_badged: r(badged.length / Math.max(answerable.length, 1)),
    badged_given_right: r(badged.length / Math.max(right.length, 1)),
    unanswerable_all_none: r(unanswerable.filter((o) => o.allNone).length / Math.max(unanswerable.length, 1)),
    wrong_top1_strong: r(wrong.filter((o) => o.topConfidence === 'strong').length / Math.max(wrong.length, 1)),
  };
}

export function stsFillers(dataDir = defaultDataDir()): string[] {
  const { pairs } = parseStsb(readFileSync(path.join(dataDir, 'stsb', 'sts-dev.csv'), 'utf8'));
  return [...new Set(pairs.flatMap((p) => [p.s1, p.s2]))];
}

export type RewordedReport = Record<'10' | '100' | '1000', Record<'tuning' | 'report' | 'all', Figures>>;

/** Runs every size for one embedder. `options` are the recall options under test. */
export async function rewordedEval(embedder: BenchEmbedder, options: RecallOptions = {}, set = loadReworded(), fillers = stsFillers()): Promise<RewordedReport> {
  const passages = [...set.facts.map((f) => f.text), ...fillers.slice(0, 1000)];
  const queries = set.questions.map((q) => q.text);
  const vectors = new Map<string, Float32Array>();
  (await cachedEmbed(embedder, 'reworded-passages', passages, 'passage')).forEach((v, i) => vectors.set(`p:${passages[i]}`, v));
  (await cachedEmbed(embedder, 'reworded-queries', queries, 'query')).forEach((v, i) => vectors.set(`q:${queries[i]}`, v));
  const idOfText = new Map(set.facts.map((f) => [f.text, f.id]));
  const report = {} as RewordedReport;
  for (const size of [10, 100, 1000] as const) {
    const outcomes: Outcome[] = [];
    for (const [si, store] of buildStores(set, size, fillers).entries()) {
      const memory: LocalMemory = await createMemory({ name: `reworded-${embedder.key}-${size}-${si}-${process.pid}-${Date.now()}`, embedder: servedEmbedder(embedder, vectors, 'reworded'), index: 'exact' });
      try {
        await memory.rememberMany(store.texts, { batchSize: 500 });
        const asked = set.questions.filter((q) => (q.answers.length === 0 ? true : store.facts.has(q.answers[0]!)));
        for (const q of asked) {
          const hits = await memory.recall(q.text, { k: 10, touch: false, ...options });
          outcomes.push({
            q,
            top: hits[0] ? (idOfText.get(hits[0].memory.text) ?? 'filler') : null,
            topConfidence: hits[0]?.confidence ?? 'none',
            allNone: hits.every((h) => (h.confidence ?? 'none') === 'none'),
          });
        }
      } finally {
        await memory.close();
      }
    }
    report[String(size) as '10'] = {
      tuning: figures(outcomes.filter((o) => half(o.q) === 'tuning')),
      report: figures(outcomes.filter((o) => half(o.q) === 'report')),
      all: figures(outcomes),
    };
  }
  return report;
}

async function main(): Promise<void> {
  const modeArg = process.argv.indexOf('--mode');
  const mode = modeArg > 0 ? (process.argv[modeArg + 1] as RecallOptions['mode']) : undefined;
  const only = process.argv.indexOf('--embedder') > 0 ? process.argv[process.argv.indexOf('--embedder') + 1] : undefined;
  const out: Record<string, RewordedReport> = {};
  for (const embedder of benchEmbedders()) {
    if (!embedder.available() || (only && embedder.key !== only)) continue;
    const r = await rewordedEval(embedder, mode ? { mode } : {});
    out[embedder.key] = r;
    for (const size of ['10', '100', '1000'] as const) {
      for (const part of ['tuning', 'report'] as const) {
        const f = r[size][part];
        console.log(
          `${embedder.key.padEnd(9)} ${size.padStart(4)} ${part.padEnd(6)} top1 ${f.top1.toFixed(3)}  right+badged ${f.top1_badged.toFixed(3)} (given right ${f.badged_given_right.toFixed(3)})  unanswerable none ${f.unanswerable_all_none.toFixed(3)}  wrong strong ${f.wrong_top1_strong.toFixed(3)}  (n ${f.answerable}+${f.unanswerable})`,
        );
      }
    }
    await embedder.dispose();
  }
  console.log(JSON.stringify({ mode: mode ?? 'default', embedders: out }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) void main();
