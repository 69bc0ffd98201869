/**
 * Do not tune to the dev split (issue #51 item 7): every fitted weight of the default recall,
 * chosen by cross-validation across LoCoMo's two development conversations. For each signal, its
 * weight is varied over a grid with the others at their defaults; the value with the best R@10 on
 * one conversation (ties: the smaller weight) is reported on the other, against the same signal
 * switched off there. A signal whose reported gain is not above zero in both folds helps only
 * where it was fitted. Both embedders. Nothing here changes a default: it says which defaults the
 * data support (BENCHMARKS.md, "Recall, second step").
 *
 * Run: `npx tsx bench/cv-weights.ts [--embedder bge-small] [--signals entity,time]`.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RecallOptions } from '../src/core/types.ts';
import { DEFAULT_HYBRID_WEIGHTS } from '../src/core/domain/scoring.ts';
import { benchEmbedders } from './embedders.ts';
import { locomoEval, loadLocomo, type LocomoFigures } from './locomo.ts';

export const GRIDS: Record<string, number[]> = {
  lexical: [0, 0.1, 0.2, 0.3, 0.5],
  entity: [0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3],
  time: [0, 0.05, 0.1, 0.2, 0.3],
  phrase: [0, 0.1, 0.2, 0.4],
  context: [0, 0.25, 0.5, 0.75, 1],
};

interface Fold {
  fittedOn: string;
  reportedOn: string;
  chosen: number;
  /** R@10 where reported: the chosen weight, and the signal off. */
  reported: number;
  off: number;
  shipped: number;
}

async function main(): Promise<void> {
  const arg = (flag: string): string | undefined => (process.argv.includes(flag) ? process.argv[process.argv.indexOf(flag) + 1] : undefined);
  const signals = arg('--signals')?.split(',') ?? Object.keys(GRIDS);
  const only = arg('--embedder');
  const data = loadLocomo();
  const out: Record<string, Record<string, Fold[]>> = {};
  for (const embedder of benchEmbedders()) {
    if (embedder.key === 'use-lite' || !embedder.available() || (only && embedder.key !== only)) continue;
    out[embedder.key] = {};
    for (const signal of signals) {
      const grid = GRIDS[signal]!;
      const configs: Record<string, RecallOptions> = Object.fromEntries(grid.map((w) => [String(w), { weights: { [signal]: w } }]));
      // R@10 of each weight on each conversation (and the per-category figures for the table).
      const r10 = new Map<string, Map<number, LocomoFigures>>();
      for (const conv of data) {
        const reports = await locomoEval(embedder, configs, [conv]);
        r10.set(conv.id, new Map(grid.map((w) => [w, reports[String(w)]!.all])));
      }
      const folds: Fold[] = [];
      for (const fit of data) {
        const other = data.find((c) => c.id !== fit.id)!;
        let chosen = grid[0]!;
        for (const w of grid) if (r10.get(fit.id)!.get(w)!.recall10 > r10.get(fit.id)!.get(chosen)!.recall10 + 1e-9) chosen = w;
        folds.push({
          fittedOn: fit.id,
          reportedOn: other.id,
          chosen,
          reported: r10.get(other.id)!.get(chosen)!.recall10,
          off: r10.get(other.id)!.get(0)!.recall10,
          shipped: r10.get(other.id)!.get(DEFAULT_HYBRID_WEIGHTS[signal as keyof typeof DEFAULT_HYBRID_WEIGHTS] as number)?.recall10 ?? Number.NaN,
        });
      }
      out[embedder.key]![signal] = folds;
      const grid10 = data.map((c) => `${c.id} ${grid.map((w) => `${w}:${r10.get(c.id)!.get(w)!.recall10.toFixed(3)}`).join(' ')}`).join(' | ');
      console.log(`${embedder.key} ${signal.padEnd(8)} default ${DEFAULT_HYBRID_WEIGHTS[signal as keyof typeof DEFAULT_HYBRID_WEIGHTS]}  ${grid10}`);
      for (const f of folds) {
        console.log(`    fit ${f.fittedOn} → ${f.chosen}; on ${f.reportedOn}: ${f.reported.toFixed(3)} (off ${f.off.toFixed(3)}, gain ${(f.reported - f.off >= 0 ? '+' : '')}${(f.reported - f.off).toFixed(3)}; shipped weight ${f.shipped.toFixed(3)})`);
      }
    }
    await embedder.dispose();
  }
  console.log(JSON.stringify(out));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) void main();
