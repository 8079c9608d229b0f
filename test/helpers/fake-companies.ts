/** The part of the company registry the station writers read (has, get, generation), with edits that bump the generation. */
export class FakeCompanies {
  generation = 0;
  constructor(private readonly byId: Map<string, { id: string; name: string }>) {}
  has(id: string): boolean {
    return this.byId.has(id);
  }
  get(id: string): { id: string; name: string } | undefined {
    return this.byId.get(id);
  }
  set(id: string, name: string): void {
    this.byId.set(id, { id, name });
    this.generation++;
  }
  delete(id: string): void {
    this.byId.delete(id);
    this.generation++;
  }
}
