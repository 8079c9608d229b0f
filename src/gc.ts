/**
 * A full garbage collection on demand, for the moments that free a whole station snapshot (a swap
 * retiring the old one). Station data lives in array buffers outside the JS heap, so V8 sees little
 * pressure to collect the objects that hold them: without this, an old 1 M-station snapshot stayed
 * resident until some later collection (RSS 2.27 GB instead of 1.15 GB after 10 swaps, see D137).
 * The main heap is small (about 16 MB), so one collection takes a few milliseconds.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

let gc: (() => void) | null = null;

export function collectGarbage(): void {
  if (gc === null) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (typeof exposed === 'function') gc = exposed;
    else {
      v8.setFlagsFromString('--expose-gc');
      gc = vm.runInNewContext('gc') as () => void;
    }
  }
  gc();
}
