/**
 * Nesting depth of request bodies (D100). JSON.parse itself is iterative in V8, but anything that
 * walks a parsed body recursively (null-dropping, validation, serialising it back) would overflow
 * the stack on a body nested some ten thousand levels deep. Bodies deeper than MAX_DEPTH are
 * refused before parsing, by one scan over the bytes; only then, for the error's pointer, is the
 * parsed value walked (iteratively) to the first node that is too deep.
 */
export const MAX_DEPTH = 64;

/** Whether the JSON text nests arrays and objects deeper than `max` (strings skipped). */
export function tooDeep(text: Uint8Array, max = MAX_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

const escape = (k: string): string => k.replace(/~/g, '~0').replace(/\//g, '~1');

/** JSON pointer of the first array or object (depth-first) nested deeper than `max`, or null. */
export function deepPointer(value: unknown, max = MAX_DEPTH): string | null {
  const stack: { v: unknown; depth: number; pointer: string }[] = [{ v: value, depth: 1, pointer: '' }];
  while (stack.length > 0) {
    const { v, depth, pointer } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return pointer;
    const entries: [string, unknown][] = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v);
    for (let k = entries.length - 1; k >= 0; k--) stack.push({ v: entries[k][1], depth: depth + 1, pointer: `${pointer}/${escape(entries[k][0])}` });
  }
  return null;
}
