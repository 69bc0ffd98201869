// Agent-memory-like sentences (8–20 words) from templates, deterministic for a seed.
import { mulberry32 } from '../test/helpers/prng.ts';

const SUBJECTS = ['The team', 'Our API', 'The user', 'The staging cluster', 'The release pipeline', 'The mobile app', 'Customer support', 'The billing service', 'The data warehouse', 'The design system'];
const VERBS = ['prefers', 'requires', 'deploys with', 'is migrating to', 'stopped using', 'depends on', 'documents', 'monitors', 'caches', 'validates'];
const OBJECTS = ['PostgreSQL 16 read replicas', 'weekly dependency updates', 'ESLint with strict TypeScript rules', 'feature flags for risky changes', 'metric units and British spelling', 'a Redis queue with three retries', 'OpenTelemetry traces on every request', 'the Frankfurt region for EU data', 'two approvals on every pull request', 'Playwright tests before each release'];
const TAILS = ['since the last incident', 'according to the March retro', 'for compliance reasons', 'unless the on-call engineer agrees', 'on weekdays only', 'as of version 2.4', '', 'after the migration finished', 'because builds got slow', 'to keep costs down'];

export function sentences(n: number, seed: number): string[] {
  const random = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  return Array.from({ length: n }, (_, i) => `${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)} ${pick(TAILS)}`.trim() + ` (note ${i}).`);
}
