/** A least-recently-used map by label with a byte budget (the storage core's read cache). */

/** Values by label, least recently used first out once their estimated bytes pass the budget. */
export class Lru<V> {
  private readonly map = new Map<number, V>();
  private bytes = 0;

  constructor(private readonly budget: number, private readonly sizeOf: (value: V) => number) {}

  get(label: number): V | undefined {
    const value = this.map.get(label);
    if (value === undefined) return undefined;
    // Most recently used last.
    this.map.delete(label);
    this.map.set(label, value);
    return value;
  }

  set(label: number, value: V): void {
    this.delete(label);
    const bytes = this.sizeOf(value);
    if (bytes > this.budget) return;
    this.map.set(label, value);
    this.bytes += bytes;
    for (const [oldest, held] of this.map) {
      if (this.bytes <= this.budget) break;
      this.map.delete(oldest);
      this.bytes -= this.sizeOf(held);
    }
  }

  delete(label: number): void {
    const value = this.map.get(label);
    if (value === undefined) return;
    this.map.delete(label);
    this.bytes -= this.sizeOf(value);
  }

  clear(): void {
    this.map.clear();
    this.bytes = 0;
  }
}
