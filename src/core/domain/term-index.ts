/**
 * The lexical index held in memory: per term, the labels of the memories that hold it with the
 * term's count there (postings in typed arrays, sorted by label), per label the document length
 * and its terms (so a memory can be taken out again), and an exact BM25 top-k over the whole
 * corpus that does not score every posting.
 *
 * The top-k is MaxScore (Turtle & Flood, 1995), term at a time: terms are read rarest first
 * (highest upper bound first); once the summed upper bounds of the terms still unread fall below
 * the k-th best score held, no memory outside the held ones can enter the top k, so the longer,
 * commoner lists are no longer scanned for new memories: only the held memories that can still
 * reach the k-th score take their counts from them (a binary search each, or one pass over the
 * list when the held memories are many), and the rest are dropped. A term's
 * upper bound is idf·(k1 + 1), which its BM25 contribution never reaches. The result is the
 * top k an exhaustive BM25 over every memory would give, ties by label.
 *
 * Pure: the storage core keeps one per store (core/storage/read-cache.ts).
 */
import { BM25_B, BM25_K1, bm25Idf } from './bm25.ts';
import type { LexicalFields } from './lexical-index.ts';

/** A memory's lexical fields, as stored beside it. */
export type TermDoc = Pick<LexicalFields, 'terms' | 'termCounts' | 'termLength'>;

export interface TermHit {
  label: number;
  /** The raw BM25 sum with the index's corpus statistics. */
  score: number;
}

/** A growable list of (label, count), sorted by label; a count of 0 marks an entry removed. */
class Postings {
  labels = new Int32Array(4);
  counts = new Uint16Array(4);
  size = 0;
  /** Entries with a count (the term's document frequency). */
  live = 0;
  /** The highest count and the shortest document length ever listed (bounds stay valid after removals). */
  maxCount = 0;
  minLength = Number.POSITIVE_INFINITY;

  /** Index of `label`, or of where it would go (binary search). */
  find(label: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.labels[mid]! < label) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  set(label: number, count: number): void {
    const at = this.size > 0 && this.labels[this.size - 1]! < label ? this.size : this.find(label);
    if (at < this.size && this.labels[at] === label) {
      if (this.counts[at] === 0) this.live++;
      this.counts[at] = count;
      return;
    }
    if (this.size === this.labels.length) {
      const labels = new Int32Array(this.size * 2);
      labels.set(this.labels);
      const counts = new Uint16Array(this.size * 2);
      counts.set(this.counts);
      this.labels = labels;
      this.counts = counts;
    }
    this.labels.copyWithin(at + 1, at, this.size);
    this.counts.copyWithin(at + 1, at, this.size);
    this.labels[at] = label;
    this.counts[at] = count;
    this.size++;
    this.live++;
  }

  unset(label: number): void {
    const at = this.find(label);
    if (at >= this.size || this.labels[at] !== label || this.counts[at] === 0) return;
    this.counts[at] = 0;
    this.live--;
    // Removed entries are squeezed out once they are half the list.
    if (this.live * 2 < this.size) this.compact();
  }

  countOf(label: number): number {
    const at = this.find(label);
    return at < this.size && this.labels[at] === label ? this.counts[at]! : 0;
  }

  private compact(): void {
    let to = 0;
    for (let i = 0; i < this.size; i++) {
      if (this.counts[i] === 0) continue;
      this.labels[to] = this.labels[i]!;
      this.counts[to] = this.counts[i]!;
      to++;
    }
    this.size = to;
  }
}

/** A term's count as a posting holds it: at least 1, and past the 16-bit range at its top (BM25 saturates long before). */
const storedCount = (count: number | undefined): number => Math.max(1, Math.min(0xffff, count ?? 1));

/** Grows a typed array to hold index `at`. */
function grown<T extends Uint32Array | Int32Array>(array: T, at: number, make: (n: number) => T): T {
  if (at < array.length) return array;
  const next = make(Math.max(at + 1, array.length * 2));
  next.set(array);
  return next;
}

export class TermIndex {
  private readonly ids = new Map<string, number>();
  private readonly lists: Postings[] = [];
  /** By label: document length + 1 (0: not indexed). */
  private lengths = new Uint32Array(1024);
  /** By label: where its term ids start in `forward`, and how many. */
  private starts = new Uint32Array(1024);
  private counts = new Uint32Array(1024);
  private forward = new Int32Array(4096);
  private forwardSize = 0;
  /** Entries of `forward` that belong to indexed labels (the rest: left by removals). */
  private forwardLive = 0;
  private docs = 0;
  private totalLength = 0;
  /**
   * By label, side by side: at 2·label the scratch score of a search (0 outside one), at
   * 2·label + 1 BM25's length normalisation for the average length `normsAverage`. A posting
   * read touches one cache line for both (postings visit labels in no order the cache can follow).
   */
  private slots = new Float64Array(0);
  private normsAverage = -1;
  /** Scratch: the labels scored so far. */
  private held = new Int32Array(0);

  /** Documents indexed (BM25's n). */
  get documents(): number {
    return this.docs;
  }

  /** Mean document length in terms (0 when empty). */
  get averageLength(): number {
    return this.docs === 0 ? 0 : this.totalLength / this.docs;
  }

  has(label: number): boolean {
    return (this.lengths[label] ?? 0) > 0;
  }

  /** Documents holding `term`. */
  documentFrequency(term: string): number {
    const id = this.ids.get(term);
    return id === undefined ? 0 : this.lists[id]!.live;
  }

  /** Indexes (or re-indexes) the memory at `label`. */
  add(label: number, doc: TermDoc): void {
    if (!Number.isInteger(label) || label < 0) return;
    if (this.has(label)) {
      // Most writes of an indexed memory keep its text (a touch, a tag edit): nothing to redo.
      if (this.holds(label, doc)) return;
      this.remove(label);
    }
    this.lengths = grown(this.lengths, label, (n) => new Uint32Array(n));
    this.starts = grown(this.starts, label, (n) => new Uint32Array(n));
    this.counts = grown(this.counts, label, (n) => new Uint32Array(n));
    this.forward = grown(this.forward, this.forwardSize + doc.terms.length, (n) => new Int32Array(n));
    this.starts[label] = this.forwardSize;
    this.counts[label] = doc.terms.length;
    for (let i = 0; i < doc.terms.length; i++) {
      const term = doc.terms[i]!;
      let id = this.ids.get(term);
      if (id === undefined) {
        id = this.lists.length;
        this.ids.set(term, id);
        this.lists.push(new Postings());
      }
      const list = this.lists[id]!;
      const count = storedCount(doc.termCounts[i]);
      list.set(label, count);
      if (count > list.maxCount) list.maxCount = count;
      if (doc.termLength < list.minLength) list.minLength = doc.termLength;
      this.forward[this.forwardSize++] = id;
    }
    this.lengths[label] = doc.termLength + 1;
    this.forwardLive += doc.terms.length;
    this.docs++;
    this.totalLength += doc.termLength;
  }

  /** Whether `label` is indexed with exactly these terms, counts and length. */
  private holds(label: number, doc: TermDoc): boolean {
    if (this.lengths[label]! - 1 !== doc.termLength || this.counts[label] !== doc.terms.length) return false;
    const start = this.starts[label]!;
    return doc.terms.every((term, i) => {
      const id = this.ids.get(term);
      return id !== undefined && id === this.forward[start + i] && this.lists[id]!.countOf(label) === storedCount(doc.termCounts[i]);
    });
  }

  /** Takes the memory at `label` out (nothing when it is not indexed). */
  remove(label: number): void {
    if (!this.has(label)) return;
    const start = this.starts[label]!;
    for (let i = start; i < start + this.counts[label]!; i++) this.lists[this.forward[i]!]!.unset(label);
    this.docs--;
    this.totalLength -= this.lengths[label]! - 1;
    this.lengths[label] = 0;
    this.forwardLive -= this.counts[label]!;
    if (this.forwardLive * 2 < this.forwardSize && this.forwardSize > 4096) this.compactForward();
  }

  /** Squeezes out the term lists of removed labels. */
  private compactForward(): void {
    const next = new Int32Array(Math.max(4096, this.forwardLive * 2));
    let to = 0;
    for (let label = 0; label < this.lengths.length; label++) {
      if (this.lengths[label] === 0) continue;
      const start = this.starts[label]!;
      const count = this.counts[label]!;
      next.set(this.forward.subarray(start, start + count), to);
      this.starts[label] = to;
      to += count;
    }
    this.forward = next;
    this.forwardSize = to;
  }

  /**
   * The `k` memories with the highest BM25 for `queryTerms` (used as a set), best first, ties by
   * label; the labels in `exclude` are left out (they are not counted in the k).
   */
  top(queryTerms: readonly string[], k: number, exclude?: Iterable<number>): TermHit[] {
    if (k <= 0 || this.docs === 0) return [];
    const n = this.docs;
    const slots = this.slotsWithNorms();
    const terms = [...new Set(queryTerms)]
      .map((t) => this.ids.get(t))
      .filter((id): id is number => id !== undefined && this.lists[id]!.live > 0)
      .map((id) => {
        const list = this.lists[id]!;
        // idf·(k1 + 1)·tf / (tf + K(dl)) is below idf·(k1 + 1) and, within one list, below its
        // value at the list's highest count and shortest document.
        const weight = bm25Idf(n, list.live) * (BM25_K1 + 1);
        const bound = (weight * list.maxCount) / (list.maxCount + this.normOf(list.minLength));
        return { list, weight, bound };
      })
      .sort((a, b) => b.bound - a.bound);
    if (terms.length === 0) return [];
    let unread = terms.reduce((sum, t) => sum + t.bound, 0);
    if (this.held.length < this.lengths.length) this.held = new Int32Array(this.lengths.length);
    const held = this.held;
    // An excluded label scores −∞ while this runs: whatever it adds stays −∞, and it is never held.
    const excluded: number[] = [];
    for (const label of exclude ?? []) {
      if (label >= 0 && 2 * label < slots.length && slots[2 * label] === 0) {
        slots[2 * label] = Number.NEGATIVE_INFINITY;
        excluded.push(label);
      }
    }
    let size = 0;
    let threshold = 0;
    let best = 0;
    try {
      for (const term of terms) {
        const reachable = unread;
        const open = size < k || reachable >= threshold;
        unread -= term.bound;
        const { labels, counts } = term.list;
        const listSize = term.list.size;
        const weight = term.weight;
        if (open) {
          // Any memory holding this term may still enter the top k: read the whole list.
          for (let i = 0; i < listSize; i++) {
            const count = counts[i]!;
            if (count === 0) continue;
            const label = labels[i]!;
            const at = 2 * label;
            const before = slots[at]!;
            if (before === 0) held[size++] = label;
            const after = before + (weight * count) / (count + slots[at + 1]!);
            slots[at] = after;
            if (after > best) best = after;
          }
        } else {
          // Only the held memories can: those that cannot reach the k-th best score even with
          // every unread term are dropped, and the rest take their count from the list, by a
          // binary search each or, when that costs more, by one pass over the list.
          let kept = 0;
          for (let i = 0; i < size; i++) {
            const label = held[i]!;
            if (slots[2 * label]! + reachable < threshold) slots[2 * label] = 0;
            else held[kept++] = label;
          }
          size = kept;
          if (size * Math.log2(listSize + 1) < listSize) {
            for (let i = 0; i < size; i++) {
              const label = held[i]!;
              const count = term.list.countOf(label);
              if (count > 0) slots[2 * label] = slots[2 * label]! + (weight * count) / (count + slots[2 * label + 1]!);
            }
          } else {
            // Held labels score above 0; the rest 0 (or −∞, excluded).
            for (let i = 0; i < listSize; i++) {
              const at = 2 * labels[i]!;
              const before = slots[at]!;
              const count = counts[i]!;
              if (before > 0 && count > 0) slots[at] = before + (weight * count) / (count + slots[at + 1]!);
            }
          }
        }
        // The k-th score matters only once the unread terms could fall below it: never while
        // they still exceed the best score held.
        if (size >= k && unread < best) threshold = kthLargest(held, size, slots, k);
      }
      // Only the memories at or above the k-th score are sorted.
      const floor = size > k ? kthLargest(held, size, slots, k) : Number.NEGATIVE_INFINITY;
      const hits: TermHit[] = [];
      for (let i = 0; i < size; i++) {
        const score = slots[2 * held[i]!]!;
        if (score >= floor) hits.push({ label: held[i]!, score });
      }
      return hits.sort((a, b) => b.score - a.score || a.label - b.label).slice(0, k);
    } finally {
      for (let i = 0; i < size; i++) slots[2 * held[i]!] = 0;
      for (const label of excluded) slots[2 * label] = 0;
    }
  }

  /** The slots, with BM25's length normalisation k1·(1 − b + b·dl/avgdl) for the current average. */
  private slotsWithNorms(): Float64Array {
    const avg = this.averageLength;
    if (this.slots.length < 2 * this.lengths.length || this.normsAverage !== avg) {
      // Outside a search every score slot is 0: a larger array starts that way too.
      if (this.slots.length < 2 * this.lengths.length) this.slots = new Float64Array(2 * this.lengths.length);
      for (let label = 0; label < this.lengths.length; label++) {
        const length = this.lengths[label]!;
        this.slots[2 * label + 1] = length > 0 ? this.normOf(length - 1) : 0;
      }
      this.normsAverage = avg;
    }
    return this.slots;
  }

  private normOf(length: number): number {
    return BM25_K1 * (1 - BM25_B + (BM25_B * length) / Math.max(this.averageLength, 1));
  }
}

/** The k-th largest score among the first `size` of `labels` (k ≤ size; scores at 2·label of `slots`): a min-heap of k. */
function kthLargest(labels: Int32Array, size: number, slots: Float64Array, k: number): number {
  const heap = new Float64Array(k);
  let filled = 0;
  for (let j = 0; j < size; j++) {
    const s = slots[2 * labels[j]!]!;
    if (filled < k) {
      let i = filled++;
      heap[i] = s;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (heap[parent]! <= s) break;
        heap[i] = heap[parent]!;
        i = parent;
      }
      heap[i] = s;
    } else if (s > heap[0]!) {
      // Sift the new value down from the root.
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= k) break;
        const r = l + 1;
        const m = r < k && heap[r]! < heap[l]! ? r : l;
        if (heap[m]! >= s) break;
        heap[i] = heap[m]!;
        i = m;
      }
      heap[i] = s;
    }
  }
  return heap[0]!;
}
