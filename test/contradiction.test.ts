import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { comparePair, contentTokens } from '../src/core/domain/contradiction.ts';
import { openTestStore } from './helpers/store.ts';

describe('contradiction patterns (pairs: older, newer)', () => {
  it('swapped alternatives', () => {
    expect(comparePair('Use npm, not pnpm or yarn.', 'Use pnpm, not npm or yarn.')).toEqual({ kind: 'contradiction', pattern: 'swap', detail: 'npm ⇄ pnpm' });
    expect(comparePair('Prefer tabs over spaces in Go files.', 'Prefer spaces over tabs in Go files.')).toMatchObject({ pattern: 'swap' });
    expect(comparePair('For hotfixes, Anna reviews and Ben deploys.', 'For hotfixes, Ben reviews and Anna deploys.')).toMatchObject({ pattern: 'swap' });
    // A reordered list is not a swap, nor is a passive.
    expect(comparePair('We use pnpm and yarn.', 'We use yarn and pnpm.')).toBeNull();
    expect(comparePair('Ben reviews the hotfix.', 'The hotfix is reviewed by Ben.')).toBeNull();
  });

  it('mutually exclusive values of one attribute: an update, said or not (the later value is current, #50)', () => {
    expect(comparePair('The team standup is on Friday.', 'The team standup is on Monday.')).toEqual({ kind: 'update', pattern: 'value', detail: 'friday → monday' });
    expect(comparePair('The staging database listens on port 5432.', 'The staging database listens on port 5433.')).toMatchObject({ kind: 'update', pattern: 'value' });
    expect(comparePair('Code reviews need two approvals.', 'Code reviews need one approval.')).toMatchObject({ pattern: 'value' });
    expect(comparePair('The team office is in Munich.', 'The team office is in Berlin.')).toMatchObject({ pattern: 'value', detail: 'munich → berlin' });
    expect(comparePair('Ben owns the billing service.', 'Lisa owns the billing service.')).toMatchObject({ pattern: 'value' });
    expect(comparePair('The feature flag for the new editor is enabled.', 'The feature flag for the new editor is disabled.')).toMatchObject({ pattern: 'value' });
    expect(comparePair('Meetings with the Vienna customer are at 10:00.', 'Meetings with the Vienna customer are at 15:00.')).toMatchObject({ pattern: 'value' });
  });

  it('changed preferences and marked changes are updates', () => {
    expect(comparePair('I prefer light mode.', 'I prefer dark mode.')).toEqual({ kind: 'update', pattern: 'value', detail: 'light → dark' });
    expect(comparePair("The user's preferred browser is Firefox.", 'The user switched to Chrome as the preferred browser.')).toMatchObject({ kind: 'update' });
    expect(comparePair('Team office is at Marienplatz 1, München.', 'Team office moved to Leopoldstraße 8, München.')).toMatchObject({ kind: 'update', pattern: 'value' });
    expect(comparePair('Send me the weekly report by email.', 'From now on, send me the weekly report on Slack.')).toMatchObject({ kind: 'update' });
    expect(comparePair('We support Safari.', "We don't support Safari anymore.")).toEqual({ kind: 'update', pattern: 'negation' });
  });

  it('negation, when the rest says the same', () => {
    expect(comparePair('Deploying on Fridays is allowed.', 'Deploying on Fridays is not allowed.')).toEqual({ kind: 'contradiction', pattern: 'negation' });
    expect(comparePair('The user eats meat.', "The user doesn't eat meat.")).toMatchObject({ pattern: 'negation' });
    // "not X" and "rather than X" say the same; so do two negations of one rule.
    expect(comparePair('Use pnpm, not npm or yarn.', 'We use pnpm rather than npm or yarn.')).toBeNull();
    expect(comparePair("The user doesn't drink coffee.", 'The user never drinks coffee.')).toBeNull();
    expect(contentTokens('Use pnpm rather than npm').negations).toBe(1);
  });

  it('paraphrases and compatible statements stay out', () => {
    for (const [older, newer] of [
      ['I prefer dark mode.', 'Dark mode is my preference.'],
      ['Ben owns the billing service.', 'The billing service is owned by Ben.'],
      ['Lisa approves cloud spend above 5,000 euros a month.', "Cloud spending over 5000 EUR per month needs Lisa's approval."],
      ['The user likes Python.', 'The user likes TypeScript.'],
      ['The user speaks German.', 'The user speaks English.'],
      ['The rate limit for free users is 100 requests per minute.', 'The rate limit for paid users is 1,000 requests per minute.'],
      ['Our CI runs on GitHub Actions.', 'Our CI also runs on GitLab CI.'],
      ['The team office is in Munich.', 'The sales office is in Hamburg.'],
    ]) expect(comparePair(older!, newer!), `${older} / ${newer}`).toBeNull();
  });

  it('meets the targets on the hand-written agent-memory pairs (precision ≥ 0.85, recall ≥ 0.60)', () => {
    const { pairs } = JSON.parse(readFileSync(new URL('../bench/data/agent-conflicts.json', import.meta.url), 'utf8')) as {
      pairs: { older: string; newer: string; label: string }[];
    };
    expect(pairs.length).toBeGreaterThanOrEqual(80);
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (const p of pairs) {
      const predicted = comparePair(p.older, p.newer) !== null;
      const gold = p.label === 'contradiction' || p.label === 'update';
      if (predicted && gold) tp++;
      else if (predicted) fp++;
      else if (gold) fn++;
    }
    expect(tp / (tp + fp)).toBeGreaterThanOrEqual(0.85);
    expect(tp / (tp + fn)).toBeGreaterThanOrEqual(0.6);
  });
});

describe('the store reports them (hash embedder, warn policy)', () => {
  it('a swap and a changed preference are conflicts, not duplicates; a paraphrase stays a duplicate', async () => {
    const store = await openTestStore();
    await store.remember('Use npm, not pnpm or yarn.');
    const swapped = await store.remember('Use pnpm, not npm or yarn.');
    expect(swapped.conflicts.map((c) => [c.kind, c.reason, c.detail])).toEqual([['contradiction', 'swapped_alternatives', 'npm ⇄ pnpm']]);
    await store.remember('I prefer light mode.');
    const dark = await store.remember('I prefer dark mode.');
    expect(dark.conflicts.map((c) => [c.kind, c.reason])).toEqual([['update', 'value_mismatch']]);
    const again = await store.remember('I prefer dark mode!');
    expect(again.conflicts.find((c) => c.b.id === dark.memory.id)).toMatchObject({ kind: 'duplicate', reason: 'similarity' });
    await store.close();
  });

  it('supersede: an update replaces the older memory; review queues it as an update', async () => {
    const store = await openTestStore();
    const old = await store.remember('The team standup is on Friday.');
    const moved = await store.remember('The team standup moved to Monday.', { onConflict: 'supersede' });
    expect(moved.action).toBe('superseded');
    expect((await store.get(old.memory.id))!.supersededBy).toBe(moved.memory.id);
    await store.remember('The staging database listens on port 5432.');
    const port = await store.remember('The staging database listens on port 5433.', { onConflict: 'review' });
    expect(port.action).toBe('queued');
    expect((await store.listPendingConflicts()).map((c) => [c.kind, c.reason])).toEqual([['update', 'value_mismatch']]);
    await store.close();
  });
});
