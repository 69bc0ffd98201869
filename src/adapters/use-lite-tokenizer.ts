/**
 * Tokenizer for Universal Sentence Encoder lite: a SentencePiece-style unigram segmenter.
 *
 * The model was trained against one particular JavaScript tokenizer (the one shipped with
 * `@tensorflow-models/universal-sentence-encoder`), so ids must match it exactly — including
 * its quirks — or the embeddings drift. Those quirks are kept on purpose and flagged below.
 */

/** Word-boundary marker: spaces become this symbol and the text is prefixed with it. */
const SEPARATOR = '\u2581';

/** Vocabulary ids 0..5 are `<unk>`, `<s>`, `</s>` and three spare ids; none is ever matched. */
const RESERVED_COUNT = 6;

/** Id emitted for text no vocabulary piece covers. */
const UNKNOWN_ID = 0;

interface TrieNode {
  children: Map<string, TrieNode>;
  /** Vocabulary id of the piece ending here, or -1 when no piece ends here. */
  id: number;
  score: number;
}

function newNode(): TrieNode {
  return { children: new Map(), id: -1, score: 0 };
}

export class UseLiteTokenizer {
  private readonly root: TrieNode = newNode();

  /** `vocab` is the model's `vocab.json`: `[piece, logProbability]` in id order. */
  constructor(vocab: [string, number][]) {
    for (let id = RESERVED_COUNT; id < vocab.length; id++) {
      const entry = vocab[id];
      if (!entry) continue;
      const [piece, score] = entry;
      let node = this.root;
      let any = false;
      for (const symbol of piece) {
        let child = node.children.get(symbol);
        if (!child) {
          child = newNode();
          node.children.set(symbol, child);
        }
        node = child;
        any = true;
      }
      // Duplicate pieces exist in the vocabulary; the later id wins, as in the reference.
      if (any) {
        node.id = id;
        node.score = score;
      }
    }
  }

  /** Token ids for `text`; the empty string gives an empty array. */
  encode(text: string): number[] {
    const normalized = text.normalize('NFKC');
    if (normalized.length === 0) return [];
    // Only U+0020 becomes the separator; tabs, newlines etc. stay as (usually unknown) symbols.
    const symbols = Array.from(SEPARATOR + normalized.replaceAll(' ', SEPARATOR));
    const n = symbols.length;

    // best[e]: score of the best segmentation of symbols[0, e); 0 doubles as "not reached yet".
    // That sentinel is a quirk of the reference (a genuine score of 0 is treated as unset), and
    // it is kept because it decides ties the model was trained with.
    const best = new Float64Array(n + 1);
    const lastId = new Int32Array(n + 1).fill(UNKNOWN_ID);
    // Length of the last piece; unreached positions step back by one symbol like an `<unk>`.
    const lastLen = new Int32Array(n + 1).fill(1);

    // Forward relaxation in ascending start order: every end position sees its candidates in
    // the same order as the reference's (end, ascending start) loop, so `>=` picks the same
    // winner on ties (the later start, i.e. the shorter final piece).
    for (let start = 0; start < n; start++) {
      const base = best[start] ?? 0;
      let node = this.root.children.get(symbols[start] as string);
      let matched = false;
      for (let end = start + 1; node && end <= n; end++) {
        if (node.id >= 0) {
          matched = true;
          relax(end, node.score + base, node.id, end - start);
        }
        node = end < n ? node.children.get(symbols[end] as string) : undefined;
      }
      // No piece starts here: a single unknown symbol with score 0.
      if (!matched) relax(start + 1, base, UNKNOWN_ID, 1);
    }

    function relax(end: number, score: number, id: number, length: number): void {
      const current = best[end] ?? 0;
      if (current === 0 || score >= current) {
        best[end] = score;
        lastId[end] = id;
        lastLen[end] = length;
      }
    }

    const reversed: number[] = [];
    for (let pos = n; pos > 0; pos -= lastLen[pos] ?? 1) reversed.push(lastId[pos] ?? UNKNOWN_ID);

    // Runs of unknown ids collapse into one, so a run of unknown symbols is one token.
    const ids: number[] = [];
    for (let i = reversed.length - 1; i >= 0; i--) {
      const id = reversed[i] as number;
      if (id === UNKNOWN_ID && ids.length > 0 && ids[ids.length - 1] === UNKNOWN_ID) continue;
      ids.push(id);
    }
    return ids;
  }
}
