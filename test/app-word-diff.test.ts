import { describe, expect, it } from 'vitest';
import { wordDiff } from '../src/app/lib/word-diff.ts';

const marked = (segments: { text: string; changed: boolean }[]) => segments.filter((s) => s.changed).map((s) => s.text);

describe('the review word diff', () => {
  it('marks the words that differ, in each text, and keeps the text whole', () => {
    const a = 'Production deploys go out from the main branch every Tuesday.';
    const b = 'Production deploys do not go out from the main branch every Tuesday.';
    const d = wordDiff(a, b);
    expect(marked(d.a)).toEqual([]);
    expect(marked(d.b)).toEqual(['do not']);
    expect(d.a.map((s) => s.text).join('')).toBe(a);
    expect(d.b.map((s) => s.text).join('')).toBe(b);
  });

  it('compares case-insensitively and marks replacements on both sides', () => {
    const d = wordDiff('We deploy on Tuesday', 'we deploy on Friday');
    expect(marked(d.a)).toEqual(['Tuesday']);
    expect(marked(d.b)).toEqual(['Friday']);
  });

  it('leaves very long texts unmarked', () => {
    const long = Array.from({ length: 2000 }, (_, i) => `w${i}`).join(' ');
    expect(marked(wordDiff(long, `${long} more`).b)).toEqual([]);
  });
});
