/** The snapshot swap as the API sees it (src/snapshot-swap.ts implements it; D133). */

/** What a snapshot swap reports. */
export interface SwapResult {
  file: string;
  version: string;
  builtAt: string;
  stations: number;
  generation: number;
  loadMs: number;
  swapMs: number;
}

export type SwapFailure = 'busy' | 'missing' | 'refused';

export class SwapError extends Error {
  constructor(
    readonly kind: SwapFailure,
    message: string,
  ) {
    super(message);
  }
}

/** The station snapshot in use and its swap (src/snapshot-swap.ts). */
export interface SnapshotControl {
  /** Loads, checks and swaps in a snapshot; rejects with SwapError. */
  reload(file?: string): Promise<SwapResult>;
  /** The file loaded without a path: SNAPSHOT, or the default snapshot where it was found or built (D123). */
  readonly defaultFile: string;
}
