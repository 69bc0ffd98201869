/**
 * How memory text is written into a recall pack so that it cannot pass for the pack's own
 * structure. A pack is one line per item, `- (type) [marks] text`, and the marks (`pinned`,
 * `reported`, `untrusted`) are what tells a model which lines are standing instructions and
 * which come from untrusted content. A memory's text therefore:
 *
 * - stays on its line: every line break, other control character and bidirectional-override
 *   character (`\n`, `\r`, U+2028, U+2029, U+0085, U+202E, …) is folded, a run at a time, into
 *   one space, so no text can start a line of its own;
 * - cannot produce a mark: `[` and `]` in it are written `\[` and `\]` (Markdown's escapes, so
 *   the block still reads as Markdown), while the marks' brackets never follow a backslash.
 *
 * Linear time (one pass, character classes only), so a hostile megabyte costs milliseconds.
 */

/** C0 and C1 controls (tab and line breaks included), the Unicode line/paragraph separators and bidi controls. */
const BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;
const BRACKET = /[[\]]/g;

/** The text of one pack item: on one line, with no bracket a mark could be mistaken for. */
export function packText(text: string): string {
  return text.replace(BREAKING, ' ').replace(BRACKET, (c) => `\\${c}`);
}

/** The marks of an item, ` [pinned, untrusted]`, or '' for a trusted, unpinned one. */
export function packMarks(pinned: boolean, trust: 'trusted' | 'reported' | 'untrusted'): string {
  const marks: string[] = [];
  if (pinned) marks.push('pinned');
  if (trust !== 'trusted') marks.push(trust);
  return marks.length ? ` [${marks.join(', ')}]` : '';
}
