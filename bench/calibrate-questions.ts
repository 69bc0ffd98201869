/**
 * The question calibration (issue #50 item 4): for the default embedder, bge-small, the relevance
 * model of its reference calibration is refitted on questions people ask of their memories — the
 * tuning half of the reworded-question set (`bench/data/reworded-questions.json`, split by
 * `half()` in bench/reworded.ts) and the dev half of the agent-memory set
 * (`bench/data/agent-memory.json`, split as bench/relevance-eval.ts splits it); the other halves
 * are only measured — because its fit on sentence pairs (STS-B, SciFact) left three right answers
 * in four unbadged at ten memories.
 *
 * Examples, from the real store (exact index, stores of 10, 100 and 1,000 memories as
 * bench/reworded.ts builds them, and the agent set's one store as bench/relevance-eval.ts builds
 * it, default recall with `explain`): the top three hits of every answerable tuning question (1
 * when the hit is its answer, else 0) and the top hit of every unanswerable one (0). Features: z and coverage as the store computed them, and the margin
 * (`cosineMargins`: the hit's cosine minus the best other candidate's). A logistic regression,
 * both classes weighted equally, a small L2 penalty on the slopes, by gradient descent from zero
 * for a fixed number of steps: deterministic. The background keeps the sentence-pair fit's.
 *
 * Called by bench/calibrate.ts (`npm run eval -- --calibrate`) for the embedders in
 * {@link QUESTION_FITTED}; alone, a dry run that prints the fit (`--features z+coverage+margin`
 * adds the margin, tried and not shipped: it bought badges with the agent set's unanswerable
 * questions): `npx tsx bench/calibrate-questions.ts [--embedder bge-small] [--features F]`.
 */
import 'fake-indexeddb/auto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RelevanceCalibration, RelevanceModel } from '../src/core/domain/relevance.ts';
import type { RecallHit } from '../src/core/types.ts';
import { cosineMargins } from '../src/core/domain/relevance.ts';
import { createMemory } from '../src/local.ts';
import { cachedEmbed, servedEmbedder, type BenchEmbedder } from './embedders.ts';
import { buildStores, half, loadReworded, stsFillers } from './reworded.ts';
import { loadAgentSet } from './relevance-eval.ts';

/**
 * The embedders whose shipped relevance model is fitted on questions (the others keep the
 * sentence-pair fit): bge-small, the default since issue #51, whose sentence-pair fit judged
 * most right answers to questions `none` (BENCHMARKS.md, "Badges with bge-small").
 */
export const QUESTION_FITTED: ReadonlySet<string> = new Set(['bge-small']);

/** The agent set's examples count this many times a reworded one (fewer questions, one store). */
export const AGENT_WEIGHT = 10;

interface Example {
  x: [number, number, number];
  y: 0 | 1;
  /** 'agent' or 'reworded'. */
  from: 'agent' | 'reworded';
}

/** Which features the fit uses: z alone (shipped), z and coverage, or those and the margin. */
export type QuestionFeatures = 'z' | 'z+coverage' | 'z+coverage+margin';

/**
 * Balanced logistic regression over the chosen features, L2 on the slopes: each class weighs
 * half, the agent set's examples {@link AGENT_WEIGHT} times a reworded one's within their class.
 * Gradient descent from zero, a fixed number of steps: deterministic. A feature left out gets
 * weight 0.
 *
 * The choice (z alone, agent weight 10) was made on the tuning halves by one rule: the most
 * reworded right answers badged while the agent set's unanswerable questions stay all `none` as
 * often as under the sentence-pair fit, less 0.01 (BENCHMARKS.md, "Badges with bge-small").
 */
export function fitQuestionModel(examples: readonly Example[], { features = 'z' as QuestionFeatures, steps = 2000, rate = 0.2, l2 = 0.01 } = {}): RelevanceModel {
  const margin = features === 'z+coverage+margin';
  const useCoverage = features !== 'z';
  const pos = examples.filter((e) => e.y === 1).length;
  const neg = examples.length - pos;
  if (pos === 0 || neg === 0) throw new Error('calibrate-questions: both classes are needed');
  const raw = examples.map((e) => (e.y === 1 ? 0.5 / pos : 0.5 / neg) * (e.from === 'agent' ? AGENT_WEIGHT : 1));
  const total = raw.reduce((a, b) => a + b, 0);
  const weight = raw.map((v) => v / total);
  const on = [true, true, useCoverage, margin];
  const w = new Float64Array(4);
  for (let step = 0; step < steps; step++) {
    const g = new Float64Array(4);
    examples.forEach(({ x, y }, i) => {
      let logit = w[0]!;
      for (let k = 0; k < 3; k++) if (on[k + 1]) logit += w[k + 1]! * x[k]!;
      const e = (1 / (1 + Math.exp(-logit)) - y) * weight[i]!;
      g[0] = g[0]! + e;
      for (let k = 0; k < 3; k++) if (on[k + 1]) g[k + 1] = g[k + 1]! + e * x[k]!;
    });
    for (let k = 0; k < 4; k++) if (on[k]) w[k] = w[k]! - rate * (g[k]! + (k > 0 ? l2 * w[k]! : 0));
  }
  const r = (v: number): number => Number(v.toFixed(4));
  // The margin was fitted in twentieths of a cosine (a scale like z's), the model takes cosines.
  return { bias: r(w[0]!), cosine: r(w[1]!), coverage: r(w[2]!), ...(margin ? { margin: r(w[3]! * MARGIN_SCALE) } : {}) };
}

const MARGIN_SCALE = 20;

/** The tuning half's examples for one embedder, through the real store with `calibration` in force. */
export async function questionExamples(embedder: BenchEmbedder, calibration: RelevanceCalibration): Promise<Example[]> {
  const set = loadReworded();
  const fillers = stsFillers();
  const passages = [...set.facts.map((f) => f.text), ...fillers.slice(0, 1000)];
  const queries = set.questions.map((q) => q.text);
  const vectors = new Map<string, Float32Array>();
  (await cachedEmbed(embedder, 'reworded-passages', passages, 'passage')).forEach((v, i) => vectors.set(`p:${passages[i]}`, v));
  (await cachedEmbed(embedder, 'reworded-queries', queries, 'query')).forEach((v, i) => vectors.set(`q:${queries[i]}`, v));
  const served = { ...servedEmbedder(embedder, vectors, 'reworded'), calibration };
  const idOfText = new Map(set.facts.map((f) => [f.text, f.id]));
  const examples: Example[] = [];
  for (const size of [10, 100, 1000] as const) {
    for (const [si, store] of buildStores(set, size, fillers).entries()) {
      const memory = await createMemory({ name: `calq-${embedder.key}-${size}-${si}-${process.pid}-${Date.now()}`, embedder: served, index: 'exact' });
      try {
        await memory.rememberMany(store.texts, { batchSize: 500 });
        for (const q of set.questions) {
          if (half(q) !== 'tuning' || (q.answers.length > 0 && !store.facts.has(q.answers[0]!))) continue;
          const hits = await memory.recall(q.text, { k: 10, touch: false, explain: true });
          collect(examples, 'reworded', hits, q.answers.length > 0 ? 3 : 1, (h) => q.answers.includes(idOfText.get(h.memory.text) ?? ''));
        }
      } finally {
        await memory.close();
      }
    }
  }
  return [...examples, ...(await agentExamples(embedder, calibration))];
}

/** Adds the examples of one recall: its top `take` hits, 1 where the hit is an answer. */
function collect(examples: Example[], from: Example['from'], hits: readonly RecallHit[], take: number, isAnswer: (hit: RecallHit) => boolean): void {
  const margins = cosineMargins(hits.map((h) => h.cosine ?? 0));
  hits.slice(0, take).forEach((h, i) => {
    const rel = h.explain?.relevance;
    if (rel) examples.push({ x: [rel.z, rel.coverage, margins[i]! * MARGIN_SCALE], y: isAnswer(h) ? 1 : 0, from });
  });
}

/** The agent-memory set's dev half, in its store (memories at their ages, as bench/relevance-eval.ts builds it). */
async function agentExamples(embedder: BenchEmbedder, calibration: RelevanceCalibration): Promise<Example[]> {
  const set = loadAgentSet();
  const texts = set.memories.map((m) => m.text);
  const queries = set.queries.map((q) => q.text);
  const vectors = new Map<string, Float32Array>();
  (await cachedEmbed(embedder, 'agent-memories', texts, 'passage')).forEach((v, i) => vectors.set(`p:${texts[i]}`, v));
  (await cachedEmbed(embedder, 'agent-queries', queries, 'query')).forEach((v, i) => vectors.set(`q:${queries[i]}`, v));
  const NOW = 1_795_000_000;
  let t = NOW;
  const memory = await createMemory({ name: `calq-agent-${embedder.key}-${process.pid}-${Date.now()}`, embedder: { ...servedEmbedder(embedder, vectors, 'agent'), calibration }, index: 'exact', clock: { now: () => t } });
  const examples: Example[] = [];
  try {
    const idOf = new Map<string, string>();
    for (const m of set.memories) {
      t = NOW - m.ageDays * 86_400 - 3_600;
      const r = await memory.remember(m.text, { importance: m.importance, ...(m.type ? { type: m.type } : {}), onConflict: 'ignore' });
      idOf.set(r.memory.id, m.id);
    }
    t = NOW;
    for (const q of set.queries) {
      if (q.split !== 'dev') continue;
      const hits = await memory.recall(q.text, { k: 10, touch: false, mode: 'hybrid', explain: true });
      collect(examples, 'agent', hits, q.relevant.length > 0 ? 3 : 1, (h) => q.relevant.includes(idOf.get(h.memory.id) ?? ''));
    }
  } finally {
    await memory.close();
  }
  return examples;
}

/** The calibration with its model refitted on questions, and the source saying so. */
export async function calibrateOnQuestions(embedder: BenchEmbedder, sentencePairs: RelevanceCalibration, options: { features?: QuestionFeatures } = {}): Promise<RelevanceCalibration> {
  const examples = await questionExamples(embedder, sentencePairs);
  const model = fitQuestionModel(examples, options);
  const related = examples.filter((e) => e.y === 1).length;
  return {
    ...sentencePairs,
    model,
    source: `background: STS-B dev random pairs; model: the reworded-question set's tuning half (stores of 10/100/1,000) and the agent-memory set's dev half (×${AGENT_WEIGHT}), ${related} answers against ${examples.length - related} other hits, features ${options.features ?? 'z'}; npm run eval -- --calibrate, ${new Date().toISOString().slice(0, 10)}`,
  };
}

async function main(): Promise<void> {
  const { benchEmbedders } = await import('./embedders.ts');
  const { calibrationFor } = await import('../src/core/domain/calibrations.ts');
  for (const embedder of benchEmbedders()) {
    const only = process.argv.includes('--embedder') ? process.argv[process.argv.indexOf('--embedder') + 1] : 'bge-small';
    if (embedder.key !== only || !embedder.available()) continue;
    const current = calibrationFor({ id: embedder.id })!;
    const at = process.argv.indexOf('--features');
    const fitted = await calibrateOnQuestions(embedder, current, at > 0 ? { features: process.argv[at + 1] as QuestionFeatures } : {});
    console.log(`${embedder.key}: ${JSON.stringify(fitted.model)} — ${fitted.source}`);
    await embedder.dispose();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
