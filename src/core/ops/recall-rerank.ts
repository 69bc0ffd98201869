/**
 * Recall's rerank step (issue #51 item 4), between scoring and the current truth first: the top
 * `top` scored candidates go to the reranker (domain/rerank.ts) with the query, their scores are
 * fused with the first stage's, and the list is reordered. Candidates scored only to pass their
 * score on (superseded ones) are not shown to the reranker. A cross-encoder is loaded through the
 * composition root's loader, which keeps it while the store is open.
 */
import { MemoryError } from '../errors.ts';
import { askReranker, fuseRerank, type Reranker, type RerankOutcome, type RerankSettings } from '../domain/rerank.ts';
import type { ScoredHit } from '../domain/scoring-types.ts';
import type { RerankDefaults } from '../context.ts';

/** The reranker a setting names: the host's function, or the loaded cross-encoder. */
async function rerankerOf(defaults: RerankDefaults, settings: RerankSettings): Promise<Reranker> {
  const { source } = settings;
  if (source.kind === 'host') return source.reranker;
  if (!defaults.load) {
    throw new MemoryError('MODEL_UNAVAILABLE', `Cross-encoder "${source.model}" cannot be loaded here: this build has no cross-encoder loader (pass rerank.reranker instead)`, { model: source.model });
  }
  return defaults.load(source.model);
}

/**
 * Reranks `ranked` (best first) in place of the first stage's order when the reranker answers in
 * time; returns the hits (best first) and which stage ran. The fused score replaces the first
 * stage's on the reranked hits; the explanation keeps both.
 */
export async function rerankHits(
  defaults: RerankDefaults,
  settings: RerankSettings,
  query: string,
  ranked: ScoredHit[],
  hidden: ReadonlySet<string>,
): Promise<{ hits: ScoredHit[]; outcome: RerankOutcome }> {
  const reranker = await rerankerOf(defaults, settings);
  const top = ranked.filter((h) => !hidden.has(h.memory.id)).slice(0, settings.top);
  const ran = settings.source.kind;
  const done: RerankOutcome = { ran, ...(settings.source.kind === 'cross-encoder' ? { model: settings.source.model } : {}), top: top.length, weight: settings.weight };
  if (top.length < 2) return { hits: ranked, outcome: done };
  const answer = await askReranker(reranker, query, top.map((h) => h.memory.text), settings.timeoutMs);
  if (!('scores' in answer)) return { hits: ranked, outcome: { ran: 'first-stage', reason: answer.reason, detail: answer.detail } };
  const fused = fuseRerank(top.map((h) => h.score), answer.scores, settings.weight);
  top.forEach((h, i) => {
    const before = h.score;
    h.score = fused[i]!;
    if (h.explain) {
      // What the reranker moved the score by, as a part of its own: the parts still sum to the score.
      const moved = h.score - before;
      const by = ran === 'host' ? 'the host’s reranker' : `the cross-encoder ${done.model}`;
      h.explain.signals.push({ name: 'rerank', value: answer.scores[i]!, weight: settings.weight, weighted: moved, reason: `Re-scored by ${by} (${answer.scores[i]!.toFixed(3)})`, details: { firstStage: before } });
      h.explain.breakdown['rerank'] = Math.round(moved * 10_000) / 10_000;
      h.explain.score = h.score;
      h.explain.rerank = { ...done, score: answer.scores[i]!, firstStage: before };
    }
  });
  // Stable: the hits the reranker did not see keep their places below the top's range.
  const hits = ranked.map((h, i) => ({ h, i })).sort((a, b) => b.h.score - a.h.score || a.i - b.i).map((x) => x.h);
  return { hits, outcome: done };
}
