/**
 * Retrieval-quality metrics with binary relevance (AI-Houkai's `eval.py`). `retrieved` is a
 * ranked list of ids, best first; `relevant` the ids judged relevant. A relevant id is credited
 * once, at its first occurrence, so duplicated ids cannot push a metric above its range.
 *
 *   recall@k    = |set(top-k) ∩ relevant| / |relevant|                      (0 when relevant is empty)
 *   precision@k = (number of top-k entries that are relevant) / len(top-k)  (0 when top-k is empty)
 *   RR          = 1 / (1-based rank of the first relevant id)               (0 when none is retrieved)
 *   AP          = Σ_{i: retrieved[i] relevant, first occurrence} (hits_i / i) / |relevant|
 *   DCG@k       = Σ_{i ≤ k: relevant, first occurrence} 1 / log2(i + 1)
 *   nDCG@k      = DCG@k / IDCG, IDCG = Σ_{i=1}^{min(|relevant|, k)} 1 / log2(i + 1)   (0 when IDCG = 0)
 *
 * RR and AP run over the whole retrieved list (which a recall has already cut to k, plus any
 * graph-expanded extras). `summarize` averages the per-case values (MRR and MAP are the means of
 * RR and AP); its `k` is the k every case used, or −1 when they differ.
 */
import { invalid } from '../errors.ts';
import { checkInteger, checkObject } from './validate.ts';

type Ids = readonly string[];
type Relevant = Iterable<string>;

function checkK(k: unknown): number {
  return checkInteger(k, 'k', 0);
}

export function recallAtK(retrieved: Ids, relevant: Relevant, k: number): number {
  const rel = new Set(relevant);
  if (rel.size === 0) return 0;
  const top = new Set(retrieved.slice(0, checkK(k)));
  let hits = 0;
  for (const id of top) if (rel.has(id)) hits++;
  return hits / rel.size;
}

export function precisionAtK(retrieved: Ids, relevant: Relevant, k: number): number {
  const rel = new Set(relevant);
  const top = retrieved.slice(0, checkK(k));
  if (top.length === 0) return 0;
  let hits = 0;
  for (const id of top) if (rel.has(id)) hits++;
  return hits / top.length;
}

export function reciprocalRank(retrieved: Ids, relevant: Relevant): number {
  const rel = new Set(relevant);
  for (let i = 0; i < retrieved.length; i++) if (rel.has(retrieved[i]!)) return 1 / (i + 1);
  return 0;
}

export function averagePrecision(retrieved: Ids, relevant: Relevant): number {
  const rel = new Set(relevant);
  if (rel.size === 0) return 0;
  const seen = new Set<string>();
  let hits = 0;
  let total = 0;
  retrieved.forEach((id, i) => {
    if (rel.has(id) && !seen.has(id)) {
      seen.add(id);
      hits++;
      total += hits / (i + 1);
    }
  });
  return total / rel.size;
}

export function dcgAtK(retrieved: Ids, relevant: Relevant, k: number): number {
  const rel = new Set(relevant);
  const seen = new Set<string>();
  let total = 0;
  retrieved.slice(0, checkK(k)).forEach((id, i) => {
    if (rel.has(id) && !seen.has(id)) {
      seen.add(id);
      total += 1 / Math.log2(i + 2);
    }
  });
  return total;
}

export function ndcgAtK(retrieved: Ids, relevant: Relevant, k: number): number {
  const rel = new Set(relevant);
  if (rel.size === 0) return 0;
  const idealHits = Math.min(rel.size, checkK(k));
  let idcg = 0;
  for (let i = 1; i <= idealHits; i++) idcg += 1 / Math.log2(i + 1);
  if (idcg === 0) return 0;
  return dcgAtK(retrieved, rel, k) / idcg;
}

// ---------------------------------------------------------------------------------------------
// Cases and summaries
// ---------------------------------------------------------------------------------------------

export interface EvalCase {
  query: string;
  relevantIds: string[];
  /** Overrides the default k. */
  k?: number;
  /** Overrides the default recall mode. */
  mode?: 'semantic' | 'hybrid';
}

export interface CaseResult {
  query: string;
  k: number;
  mode?: 'semantic' | 'hybrid';
  recallAtK: number;
  precisionAtK: number;
  rr: number;
  ap: number;
  ndcgAtK: number;
  relevantIds: string[];
  retrieved: string[];
}

export interface EvalSummary {
  n: number;
  /** The k every case used, or −1 when they differ (or there are no cases). */
  k: number;
  recallAtK: number;
  precisionAtK: number;
  mrr: number;
  map: number;
  ndcgAtK: number;
  perCase: CaseResult[];
}

/** All metrics for one case, given what the recall returned. */
export function evaluateCase(evalCase: { query: string; relevantIds: readonly string[]; k: number; mode?: 'semantic' | 'hybrid' }, retrieved: Ids): CaseResult {
  const k = checkInteger(evalCase.k, 'k', 1);
  const relevantIds = [...evalCase.relevantIds];
  return {
    query: evalCase.query,
    k,
    ...(evalCase.mode ? { mode: evalCase.mode } : {}),
    recallAtK: recallAtK(retrieved, relevantIds, k),
    precisionAtK: precisionAtK(retrieved, relevantIds, k),
    rr: reciprocalRank(retrieved, relevantIds),
    ap: averagePrecision(retrieved, relevantIds),
    ndcgAtK: ndcgAtK(retrieved, relevantIds, k),
    relevantIds,
    retrieved: [...retrieved],
  };
}

/** Means over the cases (0 for an empty list). */
export function summarize(results: readonly CaseResult[]): EvalSummary {
  const n = results.length;
  const denom = n || 1;
  const mean = (pick: (r: CaseResult) => number): number => results.reduce((acc, r) => acc + pick(r), 0) / denom;
  const ks = new Set(results.map((r) => r.k));
  return {
    n,
    k: ks.size === 1 ? [...ks][0]! : -1,
    recallAtK: mean((r) => r.recallAtK),
    precisionAtK: mean((r) => r.precisionAtK),
    mrr: mean((r) => r.rr),
    map: mean((r) => r.ap),
    ndcgAtK: mean((r) => r.ndcgAtK),
    perCase: [...results],
  };
}

/** `n=… | recall@k=… P@k=… MRR=… MAP=… nDCG@k=…` with 3 decimals (k reads "mixed" when −1). */
export function formatSummary(summary: EvalSummary): string {
  const ks = summary.k < 0 ? 'mixed' : String(summary.k);
  const f = (x: number): string => x.toFixed(3);
  return `n=${summary.n} | recall@${ks}=${f(summary.recallAtK)} P@${ks}=${f(summary.precisionAtK)} MRR=${f(summary.mrr)} MAP=${f(summary.map)} nDCG@${ks}=${f(summary.ndcgAtK)}`;
}

export interface RunEvaluationOptions {
  /** k for cases without their own, default 5. */
  defaultK?: number;
  /** Mode for cases without their own, default 'hybrid'. */
  defaultMode?: 'semantic' | 'hybrid';
}

/** Validates a gold case (a `{ query, relevantIds, k?, mode? }` object). */
export function checkEvalCase(value: unknown, index: number): EvalCase {
  const field = `cases[${index}]`;
  const raw = checkObject<EvalCase>(value, field) as Record<string, unknown>;
  if (typeof raw.query !== 'string' || raw.query.trim() === '') throw invalid(`${field}.query must be a non-empty string`, { field: `${field}.query` });
  if (!Array.isArray(raw.relevantIds) || raw.relevantIds.some((id) => typeof id !== 'string')) {
    throw invalid(`${field}.relevantIds must be an array of ids`, { field: `${field}.relevantIds` });
  }
  const out: EvalCase = { query: raw.query, relevantIds: raw.relevantIds as string[] };
  if (raw.k !== undefined) out.k = checkInteger(raw.k, `${field}.k`, 1);
  if (raw.mode !== undefined) {
    if (raw.mode !== 'semantic' && raw.mode !== 'hybrid') throw invalid(`${field}.mode must be one of: semantic, hybrid`, { field: `${field}.mode` });
    out.mode = raw.mode;
  }
  return out;
}

/**
 * Runs every case through `recall` (which must be read-only: the store passes `touch: false`) and
 * summarises. `recall` returns the ranked ids for a query.
 */
export async function runEvaluation(
  cases: readonly EvalCase[],
  recall: (query: string, options: { k: number; mode: 'semantic' | 'hybrid' }) => Promise<readonly string[]>,
  options: RunEvaluationOptions = {},
): Promise<EvalSummary> {
  if (!Array.isArray(cases)) throw invalid('cases must be an array', { field: 'cases' });
  const defaultK = options.defaultK === undefined ? 5 : checkInteger(options.defaultK, 'defaultK', 1);
  const defaultMode = options.defaultMode === undefined ? 'hybrid' : options.defaultMode;
  if (defaultMode !== 'semantic' && defaultMode !== 'hybrid') throw invalid('defaultMode must be one of: semantic, hybrid', { field: 'defaultMode' });
  const checked = cases.map((c, i) => checkEvalCase(c, i));
  const results: CaseResult[] = [];
  for (const c of checked) {
    const k = c.k ?? defaultK;
    const mode = c.mode ?? defaultMode;
    const retrieved = await recall(c.query, { k, mode });
    results.push(evaluateCase({ query: c.query, relevantIds: c.relevantIds, k, mode }, retrieved));
  }
  return summarize(results);
}
