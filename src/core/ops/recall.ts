/**
 * Retrieval as store operations: recall, the token-budgeted packs, suggestions and the gold-set
 * evaluation. The pipeline itself (pool, lexical union, scoring, selection, touch) is
 * `recall.ts`; here each operation validates its options and shapes what the pipeline returns.
 */
import type { ContextPackOptions, ContextPackResult, EvaluateOptions, RecallPackOptions } from '../api.ts';
import { requireVectors, type Using } from '../context.ts';
import { runEvaluation, type EvalCase, type EvalSummary, type RunEvaluationOptions } from '../domain/evaluate.ts';
import { checkRecallOptions, recallFilter, runRecall } from './recall-pipeline.ts';
import { checkPackCut, offeredForPack } from '../domain/pack-cut.ts';
import { checkPackOptions, fanoutQueries, packMemories, type PackOptions, type PackResult } from '../domain/recall-pack.ts';
import { suggestMemories, type SuggestOptions, type Suggestion } from '../domain/suggest.ts';
import type { Memory, RecallHit, RecallOptions } from '../types.ts';
import { checkBoolean, checkInteger, checkKnownKeys, checkObject, checkText } from '../domain/validate.ts';

const PACK_ONLY_KEYS = ['tokenBudget', 'maxItems', 'tokenCounter', 'header', 'compress', 'compressThreshold', 'compressMinGroup'] as const;

/** Splits an options object into its pack part and the rest (own data properties: a key "__proto__" stays a key). */
function splitPack<T extends object>(options: T | undefined): { pack: PackOptions; rest: Record<string, unknown> } {
  const pack: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(checkObject<T>(options, 'options'))) {
    Object.defineProperty((PACK_ONLY_KEYS as readonly string[]).includes(key) ? pack : rest, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return { pack: pack as PackOptions, rest };
}

/** Records the access of `ids` (once each) and shows the touched rows in the pack's items. */
async function touchPacked(ctx: Using<'rows'>, result: PackResult, ids: string[]): Promise<PackResult> {
  if (ids.length === 0) return result;
  const touched = new Map((await ctx.storage.touch(ids, ctx.clock.now())).map((m) => [m.id, m]));
  return { ...result, items: result.items.map((item) => ({ ...item, memory: touched.get(item.memory.id) ?? item.memory })) };
}

export async function recall(ctx: Using<'graph' | 'lexical' | 'meta' | 'rows' | 'vectors'>, query: string, options?: RecallOptions): Promise<RecallHit[]> {
  requireVectors(ctx);
  const text = checkText(query, 'query');
  return runRecall(ctx, text, checkRecallOptions(options));
}

export async function recallPack(ctx: Using<'graph' | 'lexical' | 'meta' | 'rows' | 'vectors'>, query: string, options?: RecallPackOptions): Promise<PackResult> {
  requireVectors(ctx);
  const text = checkText(query, 'query');
  const { pack, rest } = splitPack(options);
  const { includePinned, cut, cliff, minItems, ...recallOptions } = rest as { includePinned?: unknown; cut?: unknown; cliff?: unknown; minItems?: unknown };
  const packOptions = checkPackOptions(pack);
  const shape = checkPackCut({ cut, cliff, minItems });
  const pinned = includePinned === undefined ? false : checkBoolean(includePinned, 'includePinned');
  const checked = checkRecallOptions({ mode: 'hybrid', ...recallOptions, k: packOptions.maxItems });
  // Recalled without touching, packed, and only then touched: a pack that fails (a bad
  // tokenCounter) records no access.
  const recalled = offeredForPack(await runRecall(ctx, text, { ...checked, touch: false }), shape);
  const ranked: { memory: Memory; score: number }[] = [...recalled];
  if (pinned) {
    const top = ranked[0]?.score ?? 1;
    const accept = recallFilter({ ...checked, includeSuperseded: false }, ctx.clock.now());
    const pins = (await ctx.storage.list({ limit: 10_000, includeSuperseded: false, includeExpired: false, now: ctx.clock.now() })).filter(
      (m) => m.pinned && accept(m),
    );
    const pinnedIds = new Set(pins.map((m) => m.id));
    ranked.splice(0, ranked.length, ...pins.map((memory) => ({ memory, score: top })), ...ranked.filter((h) => !pinnedIds.has(h.memory.id)));
  }
  const result = packMemories(ranked, { ...packOptions, maxItems: Math.max(packOptions.maxItems, ranked.length) });
  return checked.touch ? touchPacked(ctx, result, recalled.filter((h) => !h.expandedFrom).map((h) => h.memory.id)) : result;
}

export async function contextPack(ctx: Using<'graph' | 'lexical' | 'meta' | 'rows' | 'vectors'>, task: string, options?: ContextPackOptions): Promise<ContextPackResult> {
  requireVectors(ctx);
  const text = checkText(task, 'task');
  const { pack, rest } = splitPack(options);
  const { maxPhrases, cut, cliff, minItems, ...recallOptions } = rest as { maxPhrases?: unknown; cut?: unknown; cliff?: unknown; minItems?: unknown };
  const shape = checkPackCut({ cut, cliff, minItems });
  checkKnownKeys(recallOptions, new Set(['mode', 'minCosine', 'minTrust', 'lexicalIndex', 'touch']), 'options');
  const phrases = maxPhrases === undefined ? 3 : checkInteger(maxPhrases, 'maxPhrases', 0, 20);
  const packOptions = checkPackOptions(pack);
  const checked = checkRecallOptions({ mode: 'hybrid', ...recallOptions, k: 10 });
  const queries = fanoutQueries(text, phrases);
  const best = new Map<string, { memory: Memory; score: number }>();
  for (const q of queries) {
    for (const hit of await runRecall(ctx, q, { ...checked, touch: false })) {
      const seen = best.get(hit.memory.id);
      if (!seen || hit.score > seen.score) best.set(hit.memory.id, { memory: hit.memory, score: hit.score });
    }
  }
  const ranked = offeredForPack([...best.values()].sort((a, b) => b.score - a.score), shape);
  const result = packMemories(ranked, { ...packOptions, maxItems: Math.max(packOptions.maxItems, ranked.length) });
  // Each recalled memory is touched once, after the pack succeeded.
  return { ...(checked.touch ? await touchPacked(ctx, result, [...best.keys()]) : result), queries };
}

export async function suggest(ctx: Using<'graph' | 'lexical' | 'meta' | 'rows' | 'vectors'>, context: SuggestOptions): Promise<Suggestion[]> {
  requireVectors(ctx);
  const opts = checkObject<SuggestOptions>(context, 'context');
  // The same bound as every text recall, remember and contextPack take (1 MiB), checked before any work.
  for (const field of ['filePath', 'errorMessage', 'conversationSnippet'] as const) {
    const value = opts[field];
    if (typeof value === 'string' && value.trim() !== '') checkText(value, `context.${field}`);
  }
  const text = [opts.filePath, opts.errorMessage, opts.conversationSnippet].filter((t): t is string => typeof t === 'string' && t.trim() !== '').join('\n');
  if (text === '') return suggestMemories([], opts);
  // Candidates: memories that carry surfacesWhen patterns, plus the nearest ones by meaning.
  const now = ctx.clock.now();
  const live = (m: Memory): boolean => m.supersededBy === '' && (m.expiresAt <= 0 || m.expiresAt > now);
  const withPatterns = (await ctx.storage.list({ limit: 100_000, includeSuperseded: false, includeExpired: false, now })).filter((m) => m.surfacesWhen.length > 0);
  const near = await runRecall(ctx, text, checkRecallOptions({ k: 20, mode: 'hybrid', touch: false }));
  const candidates = new Map<string, Memory>();
  for (const m of [...withPatterns, ...near.map((h) => h.memory)]) if (live(m)) candidates.set(m.id, m);
  return suggestMemories([...candidates.values()].map((memory) => ({ memory, surfacesWhen: memory.surfacesWhen })), opts);
}

export async function evaluate(ctx: Using<'graph' | 'lexical' | 'meta' | 'rows' | 'vectors'>, cases: EvalCase[], options?: EvaluateOptions): Promise<EvalSummary> {
  requireVectors(ctx);
  const { defaultK, defaultMode, ...recallOptions } = checkObject<RunEvaluationOptions & RecallOptions>(options, 'options');
  // Checked before the first case (and with no case at all): k and mode come from each case.
  checkRecallOptions({ ...recallOptions, touch: false });
  return runEvaluation(
    cases,
    async (query, { k, mode }) =>
      (await runRecall(ctx, checkText(query, 'query'), checkRecallOptions({ ...recallOptions, k, mode, touch: false }))).map((h) => h.memory.id),
    { ...(defaultK === undefined ? {} : { defaultK }), ...(defaultMode === undefined ? {} : { defaultMode }) },
  );
}
