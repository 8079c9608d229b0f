/**
 * `GET /map` and `GET /map/:file` (D195): a map of the stations drawn by MapLibre GL JS from the
 * service's own tiles, every file served by the service itself (MapLibre from the npm package,
 * country outlines from world-atlas); no key in the page: it is typed in and kept for the tab only.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { feature } from 'topojson-client';
import type { Topology } from 'topojson-specification';
import { notFound } from '../jsonapi/errors.js';
import type { ApiRequest, ApiResponse, RouteDef } from '../types.js';
import { SERVICE_VERSION } from '../../version.js';

const MAP_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Charging stations — map</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/map/maplibre-gl.css">
<style>
html, body { margin: 0; height: 100%; font: 14px system-ui, sans-serif; }
#map { position: absolute; inset: 0; }
#panel { position: absolute; top: 10px; left: 10px; z-index: 2; background: #fff; padding: 8px 10px; border-radius: 6px; box-shadow: 0 1px 4px rgba(0,0,0,.3); max-width: 340px; }
#panel input { width: 12em; }
#panel label { display: block; margin-top: 4px; }
#status { color: #555; margin-top: 4px; }
.prices { max-height: 220px; overflow: auto; margin: 4px 0 0; padding-left: 18px; }
</style>
</head>
<body>
<div id="map"></div>
<div id="panel">
<form id="keyform"><label>API key <input id="key" type="password" autocomplete="off"></label>
<label>Energy <input id="energy" type="number" min="1" max="200" value="20" style="width:5em"> kWh in
<input id="duration" type="number" min="1" max="1440" value="60" style="width:5em"> min</label>
<button type="submit">Show stations</button></form>
<div id="status">Type a key of group ReadStations to draw the stations.</div>
</div>
<script src="/map/maplibre-gl.js"></script>
<script src="/map/map.js"></script>
</body>
</html>
`;

/** The page's script: the style (plain background, country outlines, the tile layers) and the clicks. */
const MAP_JS = `'use strict';
const $ = (id) => document.getElementById(id);
const origin = location.origin;
let key = sessionStorage.getItem('cps-key') || '';
$('key').value = key;
const base = [
  { id: 'background', type: 'background', paint: { 'background-color': '#dfe9f3' } },
  { id: 'land', type: 'fill', source: 'countries', paint: { 'fill-color': '#f6f4ee' } },
  { id: 'borders', type: 'line', source: 'countries', paint: { 'line-color': '#9a9a9a', 'line-width': 0.7 } },
];
const stationLayers = [
    { id: 'clusters', type: 'circle', source: 'stations', 'source-layer': 'clusters',
      paint: { 'circle-color': ['step', ['get', 'max_power'], '#51bbd6', 50, '#f1a33c', 150, '#e0533d'],
               'circle-radius': ['step', ['get', 'count'], 5, 10, 9, 100, 14, 1000, 20, 10000, 26],
               'circle-stroke-color': '#fff', 'circle-stroke-width': 1, 'circle-opacity': 0.85 } },
    { id: 'stations', type: 'circle', source: 'stations', 'source-layer': 'stations',
      paint: { 'circle-color': ['step', ['get', 'max_power'], '#2a9d8f', 50, '#e9a03b', 150, '#d1495b'],
               'circle-radius': 6, 'circle-stroke-color': '#fff', 'circle-stroke-width': 1.5 } },
];
// The station tiles need a key: without one the map shows the countries only.
const style = (withStations) => ({
  version: 8,
  sources: withStations
    ? { countries: { type: 'geojson', data: origin + '/map/countries.geojson' }, stations: { type: 'vector', tiles: [origin + '/v1/tiles/stations/{z}/{x}/{y}.mvt'], minzoom: 0, maxzoom: 20 } }
    : { countries: { type: 'geojson', data: origin + '/map/countries.geojson' } },
  layers: withStations ? base.concat(stationLayers) : base,
});
const map = new maplibregl.Map({
  container: 'map', style: style(key !== ''), center: [2.3522, 48.8566], zoom: 5, hash: true,
  transformRequest: (url) => (url.startsWith(origin + '/v1/') && key ? { url, headers: { 'api-key': key } } : { url }),
});
window.cpsMap = map;
map.addControl(new maplibregl.NavigationControl());
map.on('error', (e) => { $('status').textContent = 'Map: ' + ((e.error && e.error.message) || 'error'); });
$('keyform').addEventListener('submit', (ev) => {
  ev.preventDefault();
  key = $('key').value.trim();
  sessionStorage.setItem('cps-key', key);
  map.setStyle(style(key !== ''), { diff: false });
  $('status').textContent = 'Drawing stations…';
});
map.on('idle', () => { if (key) $('status').textContent = 'Zoom ' + map.getZoom().toFixed(1) + ': click a cluster to zoom in, a station for its prices.'; });
const api = async (method, path, body) => {
  const r = await fetch(origin + path, { method, headers: { 'api-key': key, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
  const doc = await r.json();
  if (!r.ok) throw new Error((doc.errors && doc.errors[0] && doc.errors[0].title) || ('HTTP ' + r.status));
  return doc;
};
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
map.on('click', 'clusters', (e) => {
  const f = e.features[0];
  if (f.properties.station_id) return showStation(f.properties.station_id, f.geometry.coordinates);
  map.easeTo({ center: f.geometry.coordinates, zoom: f.properties.expansion_zoom });
});
map.on('click', 'stations', (e) => showStation(e.features[0].properties.id, e.features[0].geometry.coordinates));
for (const l of ['clusters', 'stations']) {
  map.on('mouseenter', l, () => { map.getCanvas().style.cursor = 'pointer'; });
  map.on('mouseleave', l, () => { map.getCanvas().style.cursor = ''; });
}
async function showStation(id, at) {
  const popup = new maplibregl.Popup({ maxWidth: '360px' }).setLngLat(at).setHTML('Loading…').addTo(map);
  try {
    const s = (await api('GET', '/v1/charging_stations/' + encodeURIComponent(id))).data;
    const a = s.attributes;
    const op = s.relationships.operator.data;
    const head = '<b>' + esc(a.name) + '</b><br>' + esc(a.address || '') + '<br>' +
      a.charge_points.map((c) => c.count + ' × ' + esc(c.plug) + ' ' + c.power + ' kW').join(', ');
    popup.setHTML(head + '<br>Pricing…');
    const energy = Number($('energy').value) || 20;
    const duration = Number($('duration').value) || 60;
    const station = { longitude: a.longitude, latitude: a.latitude, country: a.country, charge_points: a.charge_points.map((c) => ({ plug: c.plug, power: c.power })) };
    if (op) station.network = op.id;
    const prices = await api('POST', '/v1/charge_prices', { data: { type: 'charge_price_request', attributes: { data_adapter: 'native', station, options: { energy, duration, currency: 'EUR' } } } });
    const rows = prices.data.map((p) => {
      const best = Math.min(...p.attributes.charge_point_prices.map((c) => c.price));
      return { best, text: esc(p.attributes.provider) + ' — ' + esc(p.attributes.tariff_name || '') + ': ' + best.toFixed(2) + ' ' + esc(p.attributes.currency) };
    }).sort((x, y) => x.best - y.best).slice(0, 12);
    popup.setHTML(head + '<br>' + energy + ' kWh in ' + duration + ' min:' + (rows.length === 0 ? ' no tariff prices this station' : '<ol class="prices">' + rows.map((r) => '<li>' + r.text + '</li>').join('') + '</ol>'));
  } catch (err) {
    popup.setHTML('Could not load: ' + esc(err.message));
  }
}
`;

/** A Map: file names come from the path (D171). */
const FILES = new Map<string, { type: string; load: () => Buffer | string }>([
  ['map.js', { type: 'application/javascript; charset=utf-8', load: () => MAP_JS }],
  ['maplibre-gl.js', { type: 'application/javascript; charset=utf-8', load: () => packageFile('maplibre-gl', 'dist/maplibre-gl.js') }],
  ['maplibre-gl.css', { type: 'text/css; charset=utf-8', load: () => packageFile('maplibre-gl', 'dist/maplibre-gl.css') }],
  ['countries.geojson', { type: 'application/geo+json', load: countries }],
]);
const loaded = new Map<string, Buffer | string>();

function packageFile(pkg: string, file: string): Buffer {
  const dir = path.dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`));
  return fs.readFileSync(path.join(dir, file));
}

/** Country outlines (Natural Earth 1:50 m via world-atlas) as GeoJSON, converted once. */
function countries(): string {
  const topo = JSON.parse(packageFile('world-atlas', 'countries-50m.json').toString()) as Topology;
  return JSON.stringify(feature(topo, topo.objects.countries));
}

export function mapPageRoutes(): RouteDef[] {
  const cache = (): string => SERVICE_VERSION;
  return [
    { method: 'GET', path: '/map', groups: null, body: false, admission: 'ops', cache, handler: () => ({ status: 200, body: MAP_HTML, headers: { 'Content-Type': 'text/html; charset=utf-8' } }) },
    {
      method: 'GET',
      path: '/map/:file',
      groups: null,
      body: false,
      admission: 'ops',
      cache,
      handler: (req: ApiRequest): ApiResponse => {
        const name = req.params.file;
        const f = FILES.get(name);
        if (f === undefined) throw notFound(`no file ${name}`);
        let b = loaded.get(name);
        if (b === undefined) loaded.set(name, (b = f.load()));
        return { status: 200, body: b, headers: { 'Content-Type': f.type } };
      },
    },
  ];
}
