/**
 * A judge for what patterns cannot tell (issue #50 item 7): a function the host backs with its own
 * language model (an in-browser agent's LLM, Chrome's Prompt API) that labels a pair of memories —
 * update, contradiction, duplicate or unrelated, with a reason. The write-time scan asks it only
 * about pairs the patterns left undecided (no negation, swap or changed value; at most a
 * duplicate by similarity alone), within a similarity band, and at most `budget` times a call;
 * its verdicts enter the same conflict flow as the patterns' (reported, queued for review,
 * superseded, marked outdated). A judge that fails, answers nonsense or takes longer than
 * `timeoutMs` leaves the pair as the patterns had it. Pure apart from awaiting the judge.
 */
import { invalid } from '../errors.ts';

export const JUDGE_LABELS = ['update', 'contradiction', 'duplicate', 'unrelated'] as const;
export type JudgeLabel = (typeof JUDGE_LABELS)[number];

/** What the judge is shown: the two memories (older first, by event time) and their cosine. */
export interface JudgePair {
  older: { id: string; text: string; createdAt: number };
  newer: { id: string; text: string; createdAt: number };
  similarity: number;
}

export interface JudgeVerdict {
  label: JudgeLabel;
  reason?: string;
}

/** The host's judge; may be async (an LLM call). */
export type ConflictJudge = (pair: JudgePair) => JudgeVerdict | Promise<JudgeVerdict>;

/** Defaults: pairs from cosine 0.45 (below, unrelated facts dominate) up; four questions a call; ten seconds each. */
export const JUDGE_BAND: readonly [number, number] = [0.45, 1];
export const JUDGE_BUDGET = 4;
export const JUDGE_TIMEOUT_MS = 10_000;

export interface JudgeSettings {
  judge: ConflictJudge;
  band: readonly [number, number];
  budget: number;
  timeoutMs: number;
}

/** One call's judge with what is left of its budget (shared by every candidate of the call). */
export interface JudgeRun extends JudgeSettings {
  left: number;
  /** How many pairs were put to the judge (for the caller's report and the tests). */
  asked: number;
}

export function judgeRun(settings: JudgeSettings): JudgeRun {
  return { ...settings, left: settings.budget, asked: 0 };
}

/** Validates the store's judge settings (a function; a band inside [−1, 1]; whole budgets and timeouts). */
export function checkJudgeSettings(
  value: { judge?: unknown; judgeBand?: unknown; judgeBudget?: unknown; judgeTimeoutMs?: unknown },
  field = 'conflicts',
): JudgeSettings | null {
  if (value.judge === undefined || value.judge === null) return null;
  if (typeof value.judge !== 'function') throw invalid(`${field}.judge must be a function`, { field: `${field}.judge` });
  const band = value.judgeBand ?? JUDGE_BAND;
  if (!Array.isArray(band) || band.length !== 2 || !band.every((x) => typeof x === 'number' && Number.isFinite(x) && x >= -1 && x <= 1) || band[0] > band[1]) {
    throw invalid(`${field}.judgeBand must be [low, high] cosines in [-1, 1], low ≤ high`, { field: `${field}.judgeBand` });
  }
  const whole = (x: unknown, name: string, fallback: number, max: number): number => {
    if (x === undefined) return fallback;
    if (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x > max) throw invalid(`${field}.${name} must be a whole number in [0, ${max}]`, { field: `${field}.${name}` });
    return x;
  };
  return {
    judge: value.judge as ConflictJudge,
    band: [band[0] as number, band[1] as number],
    budget: whole(value.judgeBudget, 'judgeBudget', JUDGE_BUDGET, 100),
    timeoutMs: whole(value.judgeTimeoutMs, 'judgeTimeoutMs', JUDGE_TIMEOUT_MS, 600_000),
  };
}

/** What the judge reads of a memory (structural: the domain types import this module). */
type Side = JudgePair['older'];

/** The pair as the judge sees it: the older event first. */
export function judgePair(a: Side, b: Side, similarity: number): JudgePair {
  const [older, newer] = (a.createdAt ?? 0) <= (b.createdAt ?? 0) ? [a, b] : [b, a];
  const side = (m: Side): Side => ({ id: m.id, text: m.text, createdAt: m.createdAt });
  return { older: side(older), newer: side(newer), similarity };
}

/**
 * Asks the judge about one undecided pair when it is in the band and the budget allows: its label,
 * or undefined (not asked, failed, timed out, or an answer that is not a verdict).
 */
export async function askJudge(run: JudgeRun, a: Side, b: Side, similarity: number): Promise<JudgeVerdict | undefined> {
  if (run.left <= 0 || similarity < run.band[0] || similarity > run.band[1]) return undefined;
  run.left--;
  run.asked++;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const answer = await Promise.race([
      Promise.resolve().then(() => run.judge(judgePair(a, b, similarity))),
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), run.timeoutMs))),
    ]);
    if (!answer || typeof answer !== 'object' || !(JUDGE_LABELS as readonly string[]).includes((answer as JudgeVerdict).label)) return undefined;
    const reason = (answer as JudgeVerdict).reason;
    return { label: (answer as JudgeVerdict).label, ...(typeof reason === 'string' && reason.trim() ? { reason: reason.trim().slice(0, 500) } : {}) };
  } catch {
    return undefined;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
