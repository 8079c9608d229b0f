/** Distinct strings numbered by first use (company ids, currencies, the string table of price rows). */
export class Interner {
  readonly values: string[] = [];
  private readonly index = new Map<string, number>();

  /** The string's number, given it now if it is new. */
  of(v: string): number {
    let i = this.index.get(v);
    if (i === undefined) {
      i = this.values.length;
      this.values.push(v);
      this.index.set(v, i);
    }
    return i;
  }

  /** The string's number, or -1 when it has none. */
  find(v: string): number {
    return this.index.get(v) ?? -1;
  }
}
