/**
 * The opening screen's steps (src/app/lib/opening-steps.ts): what each says for the events the
 * worker reports, in particular a schema upgrade whose length the browser does not report (v14's
 * index build: minutes at a million memories, with no count).
 */
import { describe, expect, it } from 'vitest';
import { openingSteps, type OpeningStep } from '../src/app/lib/opening-steps.ts';
import type { ProgressEvent } from '../src/core/types.ts';

const step = (steps: OpeningStep[], key: string): OpeningStep | undefined => steps.find((s) => s.key === key);
const open = (seen: string[], progress: ProgressEvent | null) => openingSteps({ seen, progress, firstVisit: false });

describe('the opening screen, during a schema upgrade', () => {
  it('an index build of unknown length is active with an indeterminate note, says why it cannot count, and holds the model back', () => {
    const steps = open(['upgrade'], { kind: 'upgrade', done: 0, total: null });
    const upgrade = step(steps, 'upgrade')!;
    expect(upgrade).toMatchObject({ state: 'active', note: 'building the new index over every memory' });
    expect(upgrade.total).toBeUndefined();
    expect(upgrade.why).toContain('cannot say how far it has got');
    expect(upgrade.why).toContain('nothing is lost');
    expect(step(steps, 'model')!.state).toBe('waiting');
  });

  it('the build done (done = total), the step is done and the model goes on', () => {
    const steps = open(['upgrade'], { kind: 'upgrade', done: 1_000_000, total: 1_000_000 });
    expect(step(steps, 'upgrade')).toMatchObject({ state: 'done' });
    expect(step(steps, 'upgrade')!.note).toBeUndefined();
    expect(step(steps, 'model')!.state).toBe('active');
  });

  it('a counted rewrite shows rows done of the total, and says every memory is rewritten', () => {
    const upgrade = step(open(['upgrade'], { kind: 'upgrade', done: 2_000, total: 12_000 }), 'upgrade')!;
    expect(upgrade).toMatchObject({ state: 'active', done: 2_000, total: 12_000, unit: 'rows' });
    expect(upgrade.note).toBeUndefined();
    expect(upgrade.why).toContain('Each memory is rewritten once');
  });

  it('without an upgrade there is no upgrade step; the index open shows how much of it is read', () => {
    const steps = open(['model', 'index-open', 'index-load'], { kind: 'index-load', done: 40, total: 100 });
    expect(step(steps, 'upgrade')).toBeUndefined();
    expect(step(steps, 'model')!.state).toBe('done');
    expect(step(steps, 'index-open')).toMatchObject({ label: 'Loading the search index', state: 'active', done: 40, total: 100, unit: '%' });
  });
});
