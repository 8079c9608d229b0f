/**
 * Shared output slots: fixed regions of one SharedArrayBuffer into which pricing workers copy
 * their answers, so that the main thread writes a large answer (a busy station's charge prices
 * are over a megabyte) straight from shared memory and then frees the slot for the next one.
 *
 * Transferring a fresh ArrayBuffer per answer instead costs a new allocation per request in the
 * worker (fresh pages, faulted in while the answer is written) and, on the main thread, a
 * megabyte of external memory per request to collect: at about 100 such answers a second, the
 * collections it brought on took about a third of the main thread's time (CPU profile of the
 * busy-station scenario), which every other request waits for.
 *
 * A slot is free (0) or taken (1): a worker takes it with a compare-and-swap, writes the answer
 * and returns the slot index with its message (the message orders the write before the main
 * thread's read); the main thread frees it once uWS has sent the bytes or copied what the socket
 * did not take yet. An answer larger than a slot, or one finished while every slot is taken, is
 * transferred as before. A worker that dies between taking a slot and answering leaves that slot
 * taken for good; answers then fall back to transfers more often, nothing else changes.
 */
export interface OutputSlotsInit {
  data: SharedArrayBuffer;
  state: SharedArrayBuffer;
  slotBytes: number;
}

export function createOutputSlots(count: number, slotBytes: number): OutputSlotsInit {
  return { data: new SharedArrayBuffer(count * slotBytes), state: new SharedArrayBuffer(4 * count), slotBytes };
}

export class OutputSlots {
  private readonly state: Int32Array;
  private readonly bytes: Uint8Array;
  readonly count: number;
  readonly slotBytes: number;

  constructor(private readonly init: OutputSlotsInit) {
    this.state = new Int32Array(init.state);
    this.bytes = new Uint8Array(init.data);
    this.count = this.state.length;
    this.slotBytes = init.slotBytes;
  }

  /** Worker side: copies `doc` into a free slot and returns its index, or −1 (too large, none free). */
  put(doc: Uint8Array): number {
    if (doc.length > this.slotBytes) return -1;
    for (let k = 0; k < this.count; k++) {
      if (Atomics.compareExchange(this.state, k, 0, 1) === 0) {
        this.bytes.set(doc, k * this.slotBytes);
        return k;
      }
    }
    return -1;
  }

  /** Main side: the `length` bytes of slot k, without a copy (valid until `release(k)`). */
  view(k: number, length: number): Buffer {
    return Buffer.from(this.init.data, k * this.slotBytes, length);
  }

  release(k: number): void {
    Atomics.store(this.state, k, 0);
  }

  /** Slots taken right now (tests). */
  taken(): number {
    let n = 0;
    for (let k = 0; k < this.count; k++) if (Atomics.load(this.state, k) !== 0) n++;
    return n;
  }
}
