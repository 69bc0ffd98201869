/**
 * Score-adaptive packs (issue #51 item 5): how many of a recall's ranked memories a pack offers
 * its token budget, read from the scores' shape rather than filling the budget whatever it holds.
 * The list is cut at its first cliff — a drop between neighbours of at least `cliff` times the
 * spread of the scores (the best less the worst) — after `minItems`; memories on either side of a
 * smaller drop are near-ties and stay together (a cut never separates them). A flat list has no cliff and is offered whole:
 * when nothing stands out, the budget carries more of it. Pure.
 */
import { checkChoice, checkInteger, checkNumberInRange } from './validate.ts';

export const PACK_CUTS = ['cliff', 'none'] as const;

export interface PackCutOptions {
  /** 'none' (default): offer every ranked memory, as many as fit (AI-Houkai's packer); 'cliff': stop at the first cliff. */
  cut?: 'cliff' | 'none';
  /** A cliff's share of the scores' spread, in (0, 1]; default {@link PACK_CLIFF}. */
  cliff?: number;
  /** Memories always offered before a cliff may cut; default {@link PACK_MIN_ITEMS}. */
  minItems?: number;
}

/**
 * Fitted on one of LoCoMo's development conversations and reported on the other (BENCHMARKS.md,
 * issue #51 item 5): the fewest tokens losing at most 0.01 of R@budget where fitted. Reported on
 * the other conversation, it saved 9 % of an 800-token pack for 1.7 points of R@budget, which
 * is why the cut is asked for, not the default.
 */
export const PACK_CLIFF = 0.15;
export const PACK_MIN_ITEMS = 5;

export interface CheckedPackCut {
  cut: 'cliff' | 'none';
  cliff: number;
  minItems: number;
}

export function checkPackCut(o: { cut?: unknown; cliff?: unknown; minItems?: unknown }): CheckedPackCut {
  return {
    cut: o.cut === undefined ? 'none' : checkChoice(o.cut, PACK_CUTS, 'cut'),
    cliff: o.cliff === undefined ? PACK_CLIFF : checkNumberInRange(o.cliff, 'cliff', Number.MIN_VALUE, 1),
    minItems: o.minItems === undefined ? PACK_MIN_ITEMS : checkInteger(o.minItems, 'minItems', 1, 10_000),
  };
}

/** How many of `scores` (in the order they will be packed) to offer: the length before the first cliff. */
export function cutAtCliff(scores: readonly number[], options: { cliff: number; minItems: number }): number {
  const n = scores.length;
  if (n <= options.minItems) return n;
  const spread = Math.max(...scores) - Math.min(...scores);
  if (!(spread > 0)) return n;
  for (let i = options.minItems - 1; i < n - 1; i++) {
    if (scores[i]! - scores[i + 1]! >= options.cliff * spread) return i + 1;
  }
  return n;
}

/** The ranked memories a pack is offered under these options (`cut: 'none'`: all of them). */
export function offeredForPack<R extends { score: number }>(ranked: readonly R[], o: CheckedPackCut): R[] {
  return o.cut === 'none' ? [...ranked] : ranked.slice(0, cutAtCliff(ranked.map((r) => r.score), o));
}
