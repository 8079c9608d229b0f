/**
 * Encoded polylines (precision 5, the format of route planners) decoded into reused typed arrays:
 * longitudes and latitudes as @mapbox/polyline's `decode` computes them (the same integer sums
 * divided by 1e5, so the same doubles; test/domain/stations/corridor.test.ts compares the two),
 * without an array per point. The decoder of the library accepts any text, so the text is checked
 * first: characters 63–126 whose 5-bit groups end each value (a character below 95 ends one), an
 * even number of values.
 */

const FACTOR = 1e5;

/** A route's points: the first `n` entries of `lon` and `lat` (the arrays may be longer). */
export interface RouteLine {
  lon: Float64Array;
  lat: Float64Array;
  n: number;
}

/** The number of values an encoded polyline holds, or -1 when it is not one. */
export function polylineValues(s: string): number {
  let values = 0;
  let open = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 63 || c > 126) return -1;
    open = c >= 95;
    if (!open) values++;
  }
  return !open && values % 2 === 0 ? values : -1;
}

/** Arrays of at least `n` entries: `line`'s own when long enough, else new ones (twice as long). */
export function ensureLine(line: RouteLine, n: number): RouteLine {
  if (line.lon.length < n) {
    line.lon = new Float64Array(2 * n);
    line.lat = new Float64Array(2 * n);
  }
  line.n = n;
  return line;
}

/**
 * Decodes `s` into `line` (its arrays grown when too short); false, with `line` untouched, when
 * `s` is not an encoded polyline.
 */
export function decodePolylineInto(s: string, line: RouteLine): boolean {
  const values = polylineValues(s);
  if (values < 0) return false;
  const n = values / 2;
  ensureLine(line, n);
  const { lon, lat: latOut } = line;
  let index = 0;
  let lat = 0;
  let lng = 0;
  for (let k = 0; k < n; k++) {
    let shift = 1;
    let result = 0;
    let byte: number;
    do {
      byte = s.charCodeAt(index++) - 63;
      result += (byte & 0x1f) * shift;
      shift *= 32;
    } while (byte >= 0x20);
    lat += result & 1 ? (-result - 1) / 2 : result / 2;
    shift = 1;
    result = 0;
    do {
      byte = s.charCodeAt(index++) - 63;
      result += (byte & 0x1f) * shift;
      shift *= 32;
    } while (byte >= 0x20);
    lng += result & 1 ? (-result - 1) / 2 : result / 2;
    latOut[k] = lat / FACTOR;
    lon[k] = lng / FACTOR;
  }
  return true;
}
