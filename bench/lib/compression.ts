/**
 * Compressed answers beside identity ones, full stack only, in one run (D94): per scenario the
 * same request without `Accept-Encoding`, with `br` and with `gzip`, in alternating rounds;
 * medians. Before measuring, each compressed body is decoded and checked equal to the identity
 * bytes. Bytes are what travels on the wire.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import { BENCH_KEY, load, medianMeasure, waitIdle, type Measure, type Scenario } from './harness.js';

export const ENCODINGS = ['identity', 'br', 'gzip'] as const;
export type Enc = (typeof ENCODINGS)[number];

export interface CompressionRow {
  name: string;
  connections: number;
  bytes: Record<Enc, number>;
  m: Record<Enc, Measure>;
}

function fetchRaw(port: number, sc: Scenario, enc: Enc): Promise<{ status: number; body: Buffer; encoding: string | undefined }> {
  const body = sc.body === undefined ? undefined : Buffer.from(JSON.stringify(sc.body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: sc.method,
        path: sc.path,
        headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json', ...(enc === 'identity' ? {} : { 'Accept-Encoding': enc }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), encoding: res.headers['content-encoding'] }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function runCompression(
  port: number,
  pid: number | undefined,
  scenarios: readonly Scenario[],
  o: { durationS: number; runs: number; warmupS: number; connections: number; settle?: boolean },
): Promise<CompressionRow[]> {
  const rows: CompressionRow[] = [];
  for (const sc of scenarios) {
    const conns = sc.connections ?? o.connections;
    const bytes = {} as Record<Enc, number>;
    let identity: Buffer | null = null;
    for (const enc of ENCODINGS) {
      const r = await fetchRaw(port, sc, enc);
      if (r.status !== 200) throw new Error(`${sc.name} (${enc}): ${r.status} ${r.body.toString().slice(0, 200)}`);
      if (enc === 'identity') identity = r.body;
      else {
        // Bodies under COMPRESS_MIN_BYTES stay identity.
        if (r.encoding !== enc && !(r.encoding === undefined && r.body.equals(identity!))) throw new Error(`${sc.name}: asked ${enc}, got ${r.encoding ?? 'identity'}`);
        const plain = r.encoding === undefined ? r.body : enc === 'br' ? zlib.brotliDecompressSync(r.body) : zlib.gunzipSync(r.body);
        if (!plain.equals(identity!)) throw new Error(`${sc.name}: the ${enc} body does not decode to the identity bytes`);
      }
      bytes[enc] = r.body.length;
    }
    const variant = (enc: Enc): Scenario => ({ ...sc, headers: enc === 'identity' ? {} : { 'Accept-Encoding': enc } });
    const runs: Record<Enc, Measure[]> = { identity: [], br: [], gzip: [] };
    const one = async (enc: Enc, d: number): Promise<Measure> => {
      const m = await load(port, variant(enc), d, conns);
      if (pid !== undefined && o.settle !== false) await waitIdle(pid, 0.1, 60_000);
      return m;
    };
    if (o.warmupS > 0) for (const enc of ENCODINGS) await one(enc, o.warmupS);
    for (let k = 0; k < o.runs; k++) for (const enc of ENCODINGS) runs[enc].push(await one(enc, o.durationS));
    rows.push({ name: sc.name, connections: conns, bytes, m: { identity: medianMeasure(runs.identity), br: medianMeasure(runs.br), gzip: medianMeasure(runs.gzip) } });
  }
  return rows;
}

const f = (x: number, d = 0): string => (Number.isFinite(x) ? x.toLocaleString('en', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a');

export function formatCompressionTable(rows: readonly CompressionRow[]): string {
  const lines = [
    '| scenario | conns | bytes identity → br / gzip | identity req/s | br req/s (× identity) | gzip req/s (× identity) | identity p50 ms | br p50 ms (× identity) | gzip p50 ms (× identity) |',
    '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    const i = r.m.identity;
    lines.push(
      `| ${r.name} | ${r.connections} | ${f(r.bytes.identity)} → ${f(r.bytes.br)} (${f(r.bytes.identity / r.bytes.br, 1)}×) / ${f(r.bytes.gzip)} (${f(r.bytes.identity / r.bytes.gzip, 1)}×) | ${f(i.rps)} | ${f(r.m.br.rps)} (${f(r.m.br.rps / i.rps, 2)}) | ${f(r.m.gzip.rps)} (${f(r.m.gzip.rps / i.rps, 2)}) | ${f(i.p50, 2)} | ${f(r.m.br.p50, 2)} (${f(r.m.br.p50 / i.p50, 2)}) | ${f(r.m.gzip.p50, 2)} (${f(r.m.gzip.p50 / i.p50, 2)}) |`,
    );
  }
  return lines.join('\n');
}

/** The targets of D94: radius page 400 compressed ≥ 60 % of identity req/s with ≥ 5× fewer bytes; busy station p50 ≤ 1.5× identity. */
export function judgeCompression(rows: readonly CompressionRow[]): { target: string; value: string; met: boolean }[] {
  const out: { target: string; value: string; met: boolean }[] = [];
  const radius = rows.find((r) => /radius .*page 400/.test(r.name));
  if (radius) {
    for (const enc of ['br', 'gzip'] as const) {
      const share = radius.m[enc].rps / radius.m.identity.rps;
      const shrink = radius.bytes.identity / radius.bytes[enc];
      out.push({ target: `radius page 400, ${enc}: ≥ 60 % of identity req/s, ≥ 5× fewer bytes`, value: `${f(share * 100)} %, ${f(shrink, 1)}×`, met: share >= 0.6 && shrink >= 5 });
    }
  }
  const busy = rows.find((r) => /busy station \(/.test(r.name));
  if (busy) {
    for (const enc of ['br', 'gzip'] as const) {
      const x = busy.m[enc].p50 / busy.m.identity.p50;
      out.push({ target: `busy-station charge prices, ${enc}: p50 ≤ 1.5× identity`, value: `${f(busy.m[enc].p50, 2)} / ${f(busy.m.identity.p50, 2)} ms = ${f(x, 2)}×`, met: x <= 1.5 });
    }
  }
  return out;
}
