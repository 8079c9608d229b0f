/**
 * Small hand-written SVG charts for the benchmark report (no dependencies): percentile ranges per
 * scenario on a log axis, and line charts (optionally log-log) for scale curves.
 */

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';

export const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#17becf'];

/** "Nice" ticks of a log axis between lo and hi (1, 2, 5 × 10^k). */
function logTicks(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= lo * 0.999 && v <= hi * 1.001) out.push(v);
    }
  }
  return out;
}

function linTicks(lo: number, hi: number, n = 5): number[] {
  const span = hi - lo || 1;
  const raw = span / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => span / s <= n) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(Math.round(v * 1e9) / 1e9);
  return out;
}

export const fmtNum = (v: number): string =>
  v >= 1e6 ? `${+(v / 1e6).toPrecision(3)} M` : v >= 1e3 ? `${+(v / 1e3).toPrecision(3)} k` : v >= 1 ? `${+v.toPrecision(3)}` : `${+v.toPrecision(2)}`;

export interface RangeSeries {
  name: string;
  /** Percentiles in ms; NaN/undefined = not measured. */
  p50?: number;
  p90?: number;
  p99?: number;
}

/**
 * One row per scenario and series: a line from p50 to p99 on a log axis with markers at p50
 * (circle), p90 (tick) and p99 (diamond).
 */
export function rangeChart(o: { title: string; subtitle?: string; unit: string; rows: { label: string; series: RangeSeries[] }[]; seriesNames: string[] }): string {
  const W = 900;
  const left = 330;
  const right = 30;
  const top = o.subtitle ? 74 : 56;
  const rowH = 14;
  const gap = 10;
  const plotW = W - left - right;
  const vals = o.rows.flatMap((r) => r.series.flatMap((s) => [s.p50, s.p90, s.p99])).filter((v): v is number => v !== undefined && Number.isFinite(v) && v > 0);
  const lo = Math.max(0.01, Math.min(...vals, 1) / 1.5);
  const hi = Math.max(...vals, 1) * 1.5;
  const x = (v: number): number => left + ((Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * plotW;
  const nSeries = o.seriesNames.length;
  const groupH = nSeries * rowH + gap;
  const H = top + o.rows.length * groupH + 50;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" ${FONT} font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${W / 2}" y="22" text-anchor="middle" font-size="15" font-weight="600">${esc(o.title)}</text>`,
  ];
  if (o.subtitle) parts.push(`<text x="${W / 2}" y="40" text-anchor="middle" fill="#555">${esc(o.subtitle)}</text>`);
  // legend
  let lx = left;
  o.seriesNames.forEach((n, i) => {
    parts.push(`<rect x="${lx}" y="${top - 22}" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/><text x="${lx + 16}" y="${top - 12}">${esc(n)}</text>`);
    lx += 24 + n.length * 7;
  });
  parts.push(`<text x="${W - right}" y="${top - 12}" text-anchor="end" fill="#555">● p50  | p90  ◆ p99</text>`);
  const bottom = top + o.rows.length * groupH;
  for (const t of logTicks(lo, hi)) {
    parts.push(`<line x1="${x(t).toFixed(1)}" y1="${top - 4}" x2="${x(t).toFixed(1)}" y2="${bottom}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${x(t).toFixed(1)}" y="${bottom + 16}" text-anchor="middle" fill="#333">${fmtNum(t)}</text>`);
  }
  parts.push(`<text x="${left + plotW / 2}" y="${bottom + 36}" text-anchor="middle">latency (${esc(o.unit)}, log scale)</text>`);
  o.rows.forEach((r, gi) => {
    const y0 = top + gi * groupH;
    parts.push(`<text x="${left - 8}" y="${y0 + (nSeries * rowH) / 2 + 4}" text-anchor="end">${esc(r.label.length > 52 ? r.label.slice(0, 50) + '…' : r.label)}</text>`);
    if (gi > 0) parts.push(`<line x1="10" y1="${y0 - gap / 2}" x2="${W - 10}" y2="${y0 - gap / 2}" stroke="#f0f0f0"/>`);
    r.series.forEach((s) => {
      const si = o.seriesNames.indexOf(s.name);
      const c = COLORS[si % COLORS.length];
      const y = y0 + si * rowH + rowH / 2;
      const ok = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v);
      if (!ok(s.p50)) return;
      if (ok(s.p99)) parts.push(`<line x1="${x(s.p50).toFixed(1)}" y1="${y}" x2="${x(s.p99).toFixed(1)}" y2="${y}" stroke="${c}" stroke-width="3" opacity="0.55"/>`);
      parts.push(`<circle cx="${x(s.p50).toFixed(1)}" cy="${y}" r="4" fill="${c}"><title>${esc(`${s.name} p50 ${s.p50} ms`)}</title></circle>`);
      if (ok(s.p90)) parts.push(`<line x1="${x(s.p90).toFixed(1)}" y1="${y - 5}" x2="${x(s.p90).toFixed(1)}" y2="${y + 5}" stroke="${c}" stroke-width="2"/>`);
      if (ok(s.p99)) {
        const px = x(s.p99);
        parts.push(`<path d="M${(px - 5).toFixed(1)} ${y} L${px.toFixed(1)} ${y - 5} L${(px + 5).toFixed(1)} ${y} L${px.toFixed(1)} ${y + 5} Z" fill="${c}"><title>${esc(`${s.name} p99 ${s.p99} ms`)}</title></path>`);
      }
    });
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

export interface LineSeries {
  name: string;
  points: [number, number][];
  dashed?: boolean;
}

/** A line chart with markers; log axes optional; an optional horizontal target line. */
export function lineChart(o: {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  logX?: boolean;
  logY?: boolean;
  series: LineSeries[];
  target?: { y: number; label: string };
}): string {
  const W = 720;
  const H = 440;
  const left = 80;
  const right = 180;
  const top = o.subtitle ? 60 : 44;
  const bottom = 60;
  const pw = W - left - right;
  const ph = H - top - bottom;
  const xs = o.series.flatMap((s) => s.points.map((p) => p[0])).filter((v) => Number.isFinite(v));
  const ys = [...o.series.flatMap((s) => s.points.map((p) => p[1])), ...(o.target ? [o.target.y] : [])].filter((v) => Number.isFinite(v));
  if (xs.length === 0) xs.push(1);
  if (ys.length === 0) ys.push(1);
  let x0 = Math.min(...xs);
  let x1 = Math.max(...xs);
  const y0 = o.logY ? Math.min(...ys.filter((v) => v > 0)) / 1.5 : 0;
  let y1 = Math.max(...ys) * (o.logY ? 1.5 : 1.1);
  if (o.logX) {
    x0 /= 1.3;
    x1 *= 1.3;
  } else if (x0 === x1) {
    x0 -= 1;
    x1 += 1;
  }
  if (!(y1 > y0)) y1 = y0 + 1;
  const sx = (v: number): number => left + (o.logX ? (Math.log10(v) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0)) : (v - x0) / (x1 - x0)) * pw;
  const sy = (v: number): number => top + ph - (o.logY ? (Math.log10(Math.max(v, y0)) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0)) : (v - y0) / (y1 - y0)) * ph;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" ${FONT} font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${left + pw / 2}" y="22" text-anchor="middle" font-size="15" font-weight="600">${esc(o.title)}</text>`,
  ];
  if (o.subtitle) parts.push(`<text x="${left + pw / 2}" y="40" text-anchor="middle" fill="#555">${esc(o.subtitle)}</text>`);
  const xt = o.logX ? logTicks(x0, x1) : linTicks(x0, x1);
  const yt = o.logY ? logTicks(y0, y1) : linTicks(y0, y1);
  for (const t of xt) {
    parts.push(`<line x1="${sx(t).toFixed(1)}" y1="${top}" x2="${sx(t).toFixed(1)}" y2="${top + ph}" stroke="#eee"/>`);
    parts.push(`<text x="${sx(t).toFixed(1)}" y="${top + ph + 16}" text-anchor="middle">${fmtNum(t)}</text>`);
  }
  for (const t of yt) {
    parts.push(`<line x1="${left}" y1="${sy(t).toFixed(1)}" x2="${left + pw}" y2="${sy(t).toFixed(1)}" stroke="#eee"/>`);
    parts.push(`<text x="${left - 6}" y="${(sy(t) + 4).toFixed(1)}" text-anchor="end">${fmtNum(t)}</text>`);
  }
  parts.push(`<rect x="${left}" y="${top}" width="${pw}" height="${ph}" fill="none" stroke="#999"/>`);
  parts.push(`<text x="${left + pw / 2}" y="${H - 18}" text-anchor="middle">${esc(o.xLabel)}${o.logX ? ' (log)' : ''}</text>`);
  parts.push(`<text transform="translate(18 ${top + ph / 2}) rotate(-90)" text-anchor="middle">${esc(o.yLabel)}${o.logY ? ' (log)' : ''}</text>`);
  if (o.target) {
    const y = sy(o.target.y).toFixed(1);
    parts.push(`<line x1="${left}" y1="${y}" x2="${left + pw}" y2="${y}" stroke="#d62728" stroke-dasharray="6 4"/>`);
    parts.push(`<text x="${left + pw - 4}" y="${(Number(y) - 5).toFixed(1)}" text-anchor="end" fill="#d62728">${esc(o.target.label)}</text>`);
  }
  o.series.forEach((s, i) => {
    const c = COLORS[i % COLORS.length];
    const pts = s.points.filter((p) => Number.isFinite(p[0]) && Number.isFinite(p[1])).sort((a, b) => a[0] - b[0]);
    if (pts.length > 1) {
      parts.push(
        `<polyline fill="none" stroke="${c}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 4"' : ''} points="${pts.map((p) => `${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join(' ')}"/>`,
      );
    }
    for (const p of pts) parts.push(`<circle cx="${sx(p[0]).toFixed(1)}" cy="${sy(p[1]).toFixed(1)}" r="3.5" fill="${c}"><title>${esc(`${s.name}: ${fmtNum(p[0])} → ${+p[1].toPrecision(4)}`)}</title></circle>`);
    const ly = top + 10 + i * 20;
    parts.push(`<line x1="${left + pw + 14}" y1="${ly}" x2="${left + pw + 34}" y2="${ly}" stroke="${c}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 4"' : ''}/>`);
    parts.push(`<text x="${left + pw + 40}" y="${ly + 4}">${esc(s.name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}
