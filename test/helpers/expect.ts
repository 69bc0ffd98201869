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
