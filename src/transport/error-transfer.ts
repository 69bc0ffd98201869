/**
 * Errors across the worker boundary. comlink's own handler keeps only name, message and stack,
 * so a `code` would be lost and `instanceof MemoryError` would fail on the page. This handler
 * replaces it on both sides: MemoryErrors travel as plain data and are rebuilt as MemoryErrors.
 */
import * as Comlink from 'comlink';
import { MemoryError, type ErrorCode } from '../core/errors.ts';

interface WireError {
  memory: boolean;
  name: string;
  message: string;
  code?: ErrorCode;
  details?: Record<string, unknown>;
  stack?: string;
}

let installed = false;

/** Installs the error transfer handler; call once per realm (page and worker). Idempotent. */
export function installErrorTransfer(): void {
  if (installed) return;
  const builtin = Comlink.transferHandlers.get('throw');
  if (!builtin) throw new Error('comlink has no "throw" transfer handler to replace');
  const handler: Comlink.TransferHandler<{ value: unknown }, { isError: boolean; value: unknown }> = {
    canHandle: (value): value is { value: unknown } => builtin.canHandle(value),
    serialize({ value }) {
      if (value instanceof Error) {
        const wire: WireError = {
          memory: value instanceof MemoryError,
          name: value.name,
          message: value.message,
          ...(value.stack ? { stack: value.stack } : {}),
          ...(value instanceof MemoryError ? { code: value.code, details: safeDetails(value.details) } : {}),
        };
        return [{ isError: true, value: wire }, []];
      }
      return [{ isError: false, value }, []];
    },
    deserialize(serialized) {
      if (!serialized.isError) throw serialized.value;
      const wire = serialized.value as WireError;
      if (wire.memory && wire.code) {
        const error = new MemoryError(wire.code, wire.message, wire.details ?? {});
        if (wire.stack) error.stack = `${error.stack ?? ''}\n--- in the memory worker ---\n${wire.stack}`;
        throw error;
      }
      throw Object.assign(new Error(wire.message), { name: wire.name, stack: wire.stack });
    },
  };
  Comlink.transferHandlers.set('throw', handler as Comlink.TransferHandler<unknown, unknown>);
  installed = true;
}

/** Details must survive structured clone; anything that would not is turned into text. */
function safeDetails(details: Record<string, unknown>): Record<string, unknown> {
  try {
    return structuredClone(details);
  } catch {
    return JSON.parse(JSON.stringify(details, (_k, v: unknown) => (typeof v === 'function' ? String(v) : v))) as Record<string, unknown>;
  }
}
