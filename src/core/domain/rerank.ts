/**
 * A second ranking stage (issue #51 item 4): after the first stage scored its candidates, a
 * reranker reads the query beside each of the top `top` memories (at most 50) and scores the
 * pair; its scores are fused with the first stage's and the top is reordered by the fusion. The
 * reranker is either a cross-encoder the user provisioned (run by transformers.js in the
 * composition root: adapters/reranker-transformers.ts) or a function the host backs with its own
 * model, through the worker too (proxied). Off unless asked. A reranker that fails, answers
 * something that is not one finite score per text, or takes longer than `timeoutMs` leaves the
 * first stage's order, and the explanation says which stage ran. Pure apart from awaiting it.
 */
import { invalid } from '../errors.ts';

/** The host's reranker: one score per text, higher is better, on any scale. */
export type Reranker = (query: string, texts: string[]) => number[] | Promise<number[]>;

/** Loads a provisioned cross-encoder by its folder name (the composition root's; none in a bare core). */
export type RerankerLoader = (model: string) => Promise<Reranker>;

/** What `rerank` takes, at the store and on a call. */
export interface RerankOptions {
  /** A cross-encoder under the models folder (e.g. 'Xenova/ms-marco-MiniLM-L-6-v2'). */
  model?: string;
  /** The host's function; exclusive with `model`. */
  reranker?: Reranker;
  /** Candidates re-scored, 1–50; default 20. */
  top?: number;
  /** The reranker's share of the fused score, 0–1; default 0.5. */
  weight?: number;
  /** How long the reranker may take before the first stage stands, in ms; default 2,000. */
  timeoutMs?: number;
}

export const RERANK_TOP = 20;
export const RERANK_TOP_MAX = 50;
export const RERANK_WEIGHT = 0.5;
export const RERANK_TIMEOUT_MS = 2_000;

export type RerankSource = { kind: 'host'; reranker: Reranker } | { kind: 'cross-encoder'; model: string };

export interface RerankSettings {
  source: RerankSource;
  top: number;
  weight: number;
  timeoutMs: number;
}

const KEYS = new Set(['model', 'reranker', 'top', 'weight', 'timeoutMs']);

function checkParts(o: Record<string, unknown>, field: string): Partial<RerankSettings> & { source?: RerankSource } {
  for (const key of Object.keys(o)) if (!KEYS.has(key)) throw invalid(`${field}.${key} is not a rerank option (model, reranker, top, weight, timeoutMs)`, { field: `${field}.${key}` });
  if (o.model !== undefined && o.reranker !== undefined) throw invalid(`${field} takes a model or a reranker, not both`, { field: `${field}.reranker` });
  let source: RerankSource | undefined;
  if (o.model !== undefined) {
    if (typeof o.model !== 'string' || o.model.trim() === '' || o.model.length > 500) throw invalid(`${field}.model must be a model folder name`, { field: `${field}.model` });
    source = { kind: 'cross-encoder', model: o.model.trim() };
  }
  if (o.reranker !== undefined) {
    if (typeof o.reranker !== 'function') throw invalid(`${field}.reranker must be a function (query, texts) => scores`, { field: `${field}.reranker` });
    source = { kind: 'host', reranker: o.reranker as Reranker };
  }
  const out: Partial<RerankSettings> & { source?: RerankSource } = {};
  if (source) out.source = source;
  if (o.top !== undefined) {
    if (typeof o.top !== 'number' || !Number.isInteger(o.top) || o.top < 1 || o.top > RERANK_TOP_MAX) throw invalid(`${field}.top must be a whole number in [1, ${RERANK_TOP_MAX}]`, { field: `${field}.top` });
    out.top = o.top;
  }
  if (o.weight !== undefined) {
    if (typeof o.weight !== 'number' || !Number.isFinite(o.weight) || o.weight < 0 || o.weight > 1) throw invalid(`${field}.weight must be a number in [0, 1]`, { field: `${field}.weight` });
    out.weight = o.weight;
  }
  if (o.timeoutMs !== undefined) {
    if (typeof o.timeoutMs !== 'number' || !Number.isInteger(o.timeoutMs) || o.timeoutMs < 1 || o.timeoutMs > 600_000) throw invalid(`${field}.timeoutMs must be a whole number of ms in [1, 600000]`, { field: `${field}.timeoutMs` });
    out.timeoutMs = o.timeoutMs;
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The store's rerank settings (a model or a reranker, with the defaults), or null when not asked. */
export function checkRerankSettings(value: unknown, field = 'rerank'): RerankSettings | null {
  if (value === undefined || value === null || value === false) return null;
  if (!isRecord(value)) throw invalid(`${field} must be an object ({ model } or { reranker })`, { field });
  const parts = checkParts(value, field);
  if (!parts.source) throw invalid(`${field} needs a model (a cross-encoder's folder) or a reranker function`, { field: `${field}.model` });
  return { source: parts.source, top: parts.top ?? RERANK_TOP, weight: parts.weight ?? RERANK_WEIGHT, timeoutMs: parts.timeoutMs ?? RERANK_TIMEOUT_MS };
}

/** A call's `rerank`, checked on its own (before the store's is known). */
export type RerankCall = undefined | boolean | (Partial<Omit<RerankSettings, 'source'>> & { source?: RerankSource });

export function checkRerankCall(value: unknown): RerankCall {
  if (value === undefined || typeof value === 'boolean') return value;
  if (!isRecord(value)) throw invalid('rerank must be true, false or an object ({ model } or { reranker })', { field: 'rerank' });
  return checkParts(value, 'rerank');
}

/**
 * A call's `rerank` over the store's: `false` turns it off, `true` (or an object without a model
 * or reranker) takes the store's source with the call's numbers, an object with a source stands
 * on its own. Undefined keeps the store's. Asking for a rerank the store has no source for is an
 * error, not a silent first stage.
 */
export function resolveRerank(store: RerankSettings | null, call: RerankCall): RerankSettings | null {
  if (call === undefined) return store;
  if (call === false) return null;
  if (call === true) {
    if (!store) throw invalid('rerank: true needs a store opened with rerank ({ model } or { reranker })', { field: 'rerank' });
    return store;
  }
  const source = call.source ?? store?.source;
  if (!source) throw invalid('rerank needs a model or a reranker: this store was opened without one', { field: 'rerank.model' });
  return {
    source,
    top: call.top ?? store?.top ?? RERANK_TOP,
    weight: call.weight ?? store?.weight ?? RERANK_WEIGHT,
    timeoutMs: call.timeoutMs ?? store?.timeoutMs ?? RERANK_TIMEOUT_MS,
  };
}

/** Which stage ordered a recall's top, as its explanation says. */
export type RerankOutcome =
  | { ran: 'cross-encoder' | 'host'; model?: string; top: number; weight: number }
  | { ran: 'first-stage'; reason: 'timeout' | 'failed' | 'bad-answer'; detail: string };

/** (x − min) / (max − min) over the list; all 0.5 when they are all equal. */
function spread(xs: readonly number[]): number[] {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return hi > lo ? xs.map((x) => (x - lo) / (hi - lo)) : xs.map(() => 0.5);
}

/**
 * The fused scores of the reranked top, kept inside the first stage's range for that top (so a
 * candidate below the top stays below it): each side rescaled to [0, 1] over the top, mixed
 * `(1 − weight)·first + weight·reranker`, then mapped back onto [min, max] of the first scores.
 * When the first scores are all equal, the fusion only breaks their tie.
 */
export function fuseRerank(first: readonly number[], second: readonly number[], weight: number): number[] {
  if (first.length !== second.length) throw new Error('fuseRerank: one reranker score per first-stage score');
  if (first.length === 0) return [];
  const a = spread(first);
  const b = spread(second);
  const lo = Math.min(...first);
  const range = Math.max(...first) - lo;
  return a.map((x, i) => {
    const mixed = (1 - weight) * x + weight * b[i]!;
    return range > 0 ? lo + mixed * range : lo + mixed * 1e-9;
  });
}

/**
 * Asks the reranker for one score per text within the timeout: the scores, or why the first
 * stage stands. A reranker that throws synchronously is a failure like any other.
 */
export async function askReranker(reranker: Reranker, query: string, texts: string[], timeoutMs: number): Promise<{ scores: number[] } | { reason: 'timeout' | 'failed' | 'bad-answer'; detail: string }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = Symbol('timeout');
  try {
    const answer = await Promise.race([
      Promise.resolve().then(() => reranker(query, [...texts])),
      new Promise<typeof late>((resolve) => (timer = setTimeout(() => resolve(late), timeoutMs))),
    ]);
    if (answer === late) return { reason: 'timeout', detail: `no answer within ${timeoutMs} ms` };
    const scores = Array.isArray(answer) ? answer.map(Number) : null;
    if (!scores || scores.length !== texts.length || !scores.every(Number.isFinite)) {
      return { reason: 'bad-answer', detail: `expected ${texts.length} finite scores, got ${Array.isArray(answer) ? `${answer.length} values` : typeof answer}` };
    }
    return { scores };
  } catch (error) {
    return { reason: 'failed', detail: (error instanceof Error ? error.message : String(error)).slice(0, 300) };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
