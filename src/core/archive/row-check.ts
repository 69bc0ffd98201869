/**
 * An archive row as the import stores it: parsed with AI-Houkai's `from_dict` defaults
 * (`rowFromLine`), then validated and normalised field by field by the same checks `remember`
 * runs (`checkRecord`). A row that fails is a row error (`line:<n>`) and is not written; both
 * import passes read rows through here, so they agree on every row.
 *
 * A row's vector that cannot be searched by meaning (not a list of numbers, a component outside
 * float32, a zero or vanishing norm) is dropped: the row is embedded from its text, like a row
 * that has no vector. A vector of the wrong length is the planner's business (the file's vectors
 * come from another model).
 */
import { MemoryError } from '../errors.ts';
import { checkRecord, vectorProblem } from '../domain/record.ts';
import { rowFromLine, type RowOptions, type RowResult } from './format.ts';

export function readRow(text: string, lineNo: number, options: RowOptions = {}): RowResult | null {
  const row = rowFromLine(text, lineNo, options);
  if (row === null || !row.ok) return row;
  try {
    row.memory = checkRecord(row.memory);
  } catch (error) {
    if (!(error instanceof MemoryError)) throw error;
    return { ok: false, lineNo, where: `line:${lineNo}`, kind: 'malformed', message: error.message, id: row.id };
  }
  const problem = row.vectorError ?? (row.vector ? vectorProblem(row.vector) : null);
  if (problem !== null) {
    delete row.vector;
    delete row.vectorError;
    row.vectorDropped = problem;
  }
  return row;
}
