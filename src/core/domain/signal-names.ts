/**
 * The names of recall's signals, in the order they are summed and shown: apart from their
 * definitions (signals.ts), so that the types of the store (types.ts) can name them without
 * depending on how they are computed.
 */
export const CORE_SIGNALS = ['cosine', 'lexical', 'entity', 'time', 'phrase', 'context', 'recency', 'importance'] as const;
export type CoreSignal = (typeof CORE_SIGNALS)[number];
