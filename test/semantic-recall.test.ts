import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemory, type LocalMemory } from '../src/local.ts';
import { uniqueName } from './helpers/store.ts';

// Realistic agent memories: conventions, preferences, deploy steps, facts.
const MEMORIES = [
  'We lint the codebase with ESLint using the airbnb config, and Prettier formats on save.',
  'Production deploys go out from the main branch via GitHub Actions, after the staging smoke tests pass.',
  'The user prefers concise answers in British English and metric units.',
  'Our primary database is PostgreSQL 16; analytics queries go to a read replica.',
  'Unit tests run with Vitest; browser end-to-end tests use Playwright.',
  'Never commit secrets: API keys live in the team vault and are injected as environment variables.',
  'The on-call rotation changes every Monday at 09:00 UTC.',
  'Code review needs two approvals before a pull request can be merged.',
  'Staging is reset from a production snapshot every Sunday night.',
  'The frontend is written in Svelte 5 with TypeScript in strict mode.',
  'User-facing errors are logged to Sentry with the release tag attached.',
  'Python services are packaged with uv and deployed as Docker images.',
  'The design system uses an 8-pixel spacing grid and the Inter typeface.',
  'Feature flags are managed in LaunchDarkly and cleaned up after two weeks.',
  'Database migrations must be backwards compatible for one release.',
  'The user is allergic to peanuts; never suggest recipes that contain them.',
  'Customer data must stay in the EU region (Frankfurt) for GDPR reasons.',
  'Release notes are written in the CHANGELOG using Keep a Changelog headings.',
  'Background jobs run on a Redis-backed queue with at most three retries.',
  'The team standup is at 10:15 every weekday on the video call.',
];

const QUESTIONS: [string, number][] = [
  ['which linter do we use?', 0],
  ['how do we ship to production?', 1],
  ['which spelling and units does the user prefer?', 2],
  ['which database do we run?', 3],
  ['where should API keys be stored?', 5],
  ['when does on-call hand over?', 6],
  ['how many approvals does a PR need?', 7],
  ['what UI framework is the frontend built with?', 9],
  ['where do error reports go?', 10],
  ['does the user have any food allergies?', 15],
  ['which region must customer data stay in?', 16],
  ['how do we retry failed background jobs?', 18],
  ['what time is the daily standup?', 19],
];

describe('semantic recall with the bundled use-lite model', () => {
  let memory: LocalMemory;
  let ids: string[];

  beforeAll(async () => {
    memory = await createMemory({ name: uniqueName('semantic'), embedder: 'use-lite' });
    ids = (await memory.rememberMany(MEMORIES)).map((r) => r.memory.id);
  });
  afterAll(() => memory.close());

  it('records the model it embedded with', async () => {
    expect((await memory.stats()).embedder).toEqual({ id: 'universal-sentence-encoder-lite', dim: 512 });
    expect((await memory.stats()).index.kind).toBe('hnsw');
  });

  it.each(QUESTIONS)('"%s" ranks the right memory first', async (question, expected) => {
    const hits = await memory.recall(question, { k: 3, touch: false, mode: 'semantic' });
    expect(hits[0]!.memory.text).toBe(MEMORIES[expected]);
    expect(hits[0]!.memory.id).toBe(ids[expected]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });
});
