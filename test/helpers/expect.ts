import { expect } from 'vitest';
import { MemoryError } from '../../src/core/errors.ts';

/** Asserts `call` throws MemoryError INVALID_ARGUMENT (naming `field`, when given). */
export function expectInvalid(call: () => unknown, field?: string): void {
  let error: unknown;
  try {
    call();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(MemoryError);
  expect((error as MemoryError).code).toBe('INVALID_ARGUMENT');
  if (field !== undefined) expect((error as MemoryError).details.field).toBe(field);
}

/** The same for a promise. */
export async function expectInvalidAsync(promise: Promise<unknown>, field?: string): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MemoryError);
  expect((error as MemoryError).code).toBe('INVALID_ARGUMENT');
  if (field !== undefined) expect((error as MemoryError).details.field).toBe(field);
}

/** What a call settles with: `resolved`, or the error's code with its `details.reason` (SYNC_KEY's, say). */
export async function codeAndReason(promise: Promise<unknown>): Promise<{ code: string; reason?: unknown }> {
  try {
    await promise;
    return { code: 'resolved' };
  } catch (error) {
    const e = error as { code?: string; details?: { reason?: unknown } };
    return { code: e.code ?? String(error), reason: e.details?.reason };
  }
}
