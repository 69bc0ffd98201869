/**
 * Issue #50 item 5: time words are time, not keywords. "last week", "yesterday", "in May", "two
 * days before" feed the time signal and never the lexical score.
 */
import { describe, expect, it } from 'vitest';
import { scoreCandidates } from '../src/core/domain/scoring.ts';
import { withoutTimeWords } from '../src/core/domain/time-expressions.ts';
import type { Memory } from '../src/core/types.ts';

const NOW = Date.UTC(2026, 5, 1) / 1000;

const memory = (id: string, text: string, createdAt = NOW - 86_400 * 200): Memory => ({
  id, text, type: 'episodic', tags: [], importance: 0.5, createdAt, lastAccessed: createdAt, accessCount: 0, source: null, links: [], supersededBy: '',
  supersededAt: 0, polarity: 0, expiresAt: 0, pinned: false, trust: 'trusted', contentHash: '', validFrom: 0, validUntil: 0, surfacesWhen: [],
});

describe('time words', () => {
  it('are blanked from the lexical query, each kind', () => {
    expect(withoutTimeWords('What did Kwame say about the trip last week?', NOW)).not.toMatch(/week/);
    expect(withoutTimeWords('what happened yesterday', NOW)).not.toMatch(/yesterday/);
    expect(withoutTimeWords('Where did we go in May?', NOW)).not.toMatch(/may/);
    expect(withoutTimeWords('What did I do two days before the wedding?', NOW)).toMatch(/wedding/);
    expect(withoutTimeWords('What did I do two days before the wedding?', NOW)).not.toMatch(/days|before/);
    // Not a time: left alone.
    expect(withoutTimeWords('I forgot to feed it for a week', NOW)).toContain('week');
    expect(withoutTimeWords('May I bring 8 people?', NOW)).toContain('may');
  });

  it('never give a memory lexical credit ("…for a week." does not match "last week")', () => {
    const pool = [
      { memory: memory('fish', 'My fish died because I forgot to feed it for a week.'), cosine: 0.3 },
      { memory: memory('trip', 'Kwame said the trip to Accra was wonderful.'), cosine: 0.3 },
    ];
    const hits = scoreCandidates(pool, 'What did Kwame say about the trip last week?', { mode: 'hybrid', now: NOW, explain: true });
    const lexical = (id: string) => hits.find((h) => h.memory.id === id)!.explain!.signals.find((s) => s.name === 'lexical')!.value;
    expect(lexical('fish')).toBe(0);
    expect(lexical('trip')).toBeGreaterThan(0);
    expect(hits[0]!.memory.id).toBe('trip');
  });

  it('feed the time signal: a memory that says the same time in the same words fits it', () => {
    const pool = [
      { memory: memory('said', 'Recently I had a setback at work.', NOW - 86_400 * 400), cosine: 0.3 },
      { memory: memory('silent', 'I had a setback at work.', NOW - 86_400 * 400), cosine: 0.3 },
    ];
    const hits = scoreCandidates(pool, 'What setback did I face recently?', { mode: 'hybrid', now: NOW, explain: true });
    const time = (id: string) => hits.find((h) => h.memory.id === id)!.explain!.signals.find((s) => s.name === 'time')!.value;
    expect(time('said')).toBe(1);
    expect(time('silent')).toBeLessThan(1);
  });
});
