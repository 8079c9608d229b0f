/** The snapshot swap as the API sees it (src/snapshot-swap.ts implements it; D133, D220). */
import type { SwapResultKind, SwapSource } from '../storage/snapshot-swaps.js';

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

/** `unreachable`: a snapshot URL could not be downloaded (D220). */
export type SwapFailure = 'busy' | 'missing' | 'refused' | 'unreachable';

export class SwapError extends Error {
  constructor(
    readonly kind: SwapFailure,
    message: string,
  ) {
    super(message);
  }
}

/** One replica's outcome of a swap across replicas (D220). */
export interface ReplicaOutcome {
  id: string;
  name: string;
  /** `pending`: no outcome in time. */
  outcome: SwapResultKind | 'pending';
  version: string | null;
  detail: string | null;
}

/** What telling the other replicas gave: each replica's outcome, or why they were not told. */
export type ClusterAnswer = { replicas: ReplicaOutcome[] } | { error: string };

/** The swap across the replicas of a PostgreSQL live store (src/snapshot-cluster.ts). */
export interface ClusterControl {
  /** Records the swap this replica made, tells the others and waits for their outcomes. */
  announce(result: SwapResult, source: SwapSource): Promise<ClusterAnswer>;
  /** The version the cluster swapped to and why this replica does not serve it; null when it does. */
  behind(): { version: string; detail: string } | null;
}

/** The station snapshot in use and its swap (src/snapshot-swap.ts). */
export interface SnapshotControl {
  /**
   * Loads, checks and swaps in a snapshot; with `expectVersion`, a file of another version is
   * refused before it replaces anything. Rejects with SwapError.
   */
  reload(file?: string, expectVersion?: string): Promise<SwapResult>;
  /** The file loaded without a path: SNAPSHOT, or the default snapshot where it was found or built (D123). */
  readonly defaultFile: string;
  /** D220: the other replicas of a PostgreSQL live store; null on SQLite. */
  readonly cluster: ClusterControl | null;
  /** D220: the local file of the snapshot at `url` with that SHA-256 (downloaded once); rejects with SwapError. */
  download(url: string, sha256: string): Promise<string>;
}
