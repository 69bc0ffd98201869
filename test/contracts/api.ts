/**
 * What a contract suite needs of a test framework: vitest's own functions in Node, and in a
 * browser worker the small runner of e2e/contracts.worker.ts with @vitest/expect's matchers — so
 * one suite runs unchanged in both.
 */
import type { ExpectStatic } from '@vitest/expect';

export interface TestApi {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => unknown, timeout?: number): void;
  expect: ExpectStatic;
}
