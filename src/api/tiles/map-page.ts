/**
 * `GET /map` and `GET /map/:file` (D195): a map of the stations drawn by MapLibre GL JS from the
 * service's own tiles, every file served by the service itself (MapLibre from the npm package,
 * country outlines from world-atlas); no key in the page: it is typed in and kept for the tab only.
 * Two clicks plan a trip between them (D267–D271, a straight route) and draw its stops.
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
#panel input[type=checkbox] { width: auto; }
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
<div id="status">Type a key of group ReadStations to draw the stations (with ReadCosts: coloured by price).</div>
<form id="tripform"><label><input id="trip" type="checkbox"> Plan a trip (ReadCosts): click a start and a destination; the route is the straight line between them</label>
<label>Car <input id="car" value="01de7c99-366b-4084-909d-5723aad78668"> start <input id="startsoc" type="number" min="0" max="100" value="80" style="width:4em"> %</label></form>
<div id="tripinfo"></div>
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
const radius = ['step', ['get', 'count'], 5, 10, 9, 100, 14, 1000, 20, 10000, 26];
// With a price profile: the cheapest price per kWh of the typed session, green to red; grey without a price.
const byPrice = (energy) => ['case', ['has', 'price'],
  ['interpolate', ['linear'], ['/', ['get', 'price'], energy], 0.2, '#1a9850', 0.45, '#fee08b', 0.8, '#d73027'], '#9e9e9e'];
const stationLayers = (energy) => [
    { id: 'clusters', type: 'circle', source: 'stations', 'source-layer': 'clusters',
      paint: { 'circle-color': energy ? byPrice(energy) : ['step', ['get', 'max_power'], '#51bbd6', 50, '#f1a33c', 150, '#e0533d'],
               'circle-radius': radius, 'circle-stroke-color': '#fff', 'circle-stroke-width': 1, 'circle-opacity': 0.85 } },
    { id: 'stations', type: 'circle', source: 'stations', 'source-layer': 'stations',
      paint: { 'circle-color': energy ? byPrice(energy) : ['step', ['get', 'max_power'], '#2a9d8f', 50, '#e9a03b', 150, '#d1495b'],
               'circle-radius': 6, 'circle-stroke-color': '#fff', 'circle-stroke-width': 1.5 } },
    // Cluster counts (D279): the style names no glyph server, so MapLibre draws the digits in the page itself.
    { id: 'cluster-counts', type: 'symbol', source: 'stations', 'source-layer': 'clusters', filter: ['>', ['get', 'count'], 1],
      layout: { 'text-field': ['to-string', ['get', 'count']], 'text-font': ['sans-serif'], 'text-size': 11, 'text-allow-overlap': true, 'text-ignore-placement': true },
      paint: { 'text-color': '#1d1d1d', 'text-halo-color': '#fff', 'text-halo-width': 1 } },
];
// Tiles through the page's own protocol (D279): the key sent, a 503 or 429 asked again after Retry-After
// (at most 5 times), and Cache-Control passed on, so MapLibre asks again for a price tile answered with
// Price-Tile-Pending (D278) when its max-age ends. Pending stations per tile, for the status line.
const pendingTiles = new Map();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
maplibregl.addProtocol('cps', async (params, abort) => {
  const url = origin + params.url.slice('cps://tiles'.length);
  for (let attempt = 0; ; attempt++) {
    const r = await fetch(url, { headers: key ? { 'api-key': key } : {}, signal: abort.signal, cache: 'no-store' });
    if ((r.status === 503 || r.status === 429) && attempt < 5) {
      await sleep(1000 * Math.min(10, Number(r.headers.get('Retry-After')) || 1));
      continue;
    }
    if (r.status === 204) {
      pendingTiles.delete(url);
      return { data: new ArrayBuffer(0) };
    }
    if (!r.ok) throw new Error('tile ' + r.status);
    const pending = Number(r.headers.get('Price-Tile-Pending') || 0);
    if (pending > 0) pendingTiles.set(url, pending);
    else pendingTiles.delete(url);
    return { data: await r.arrayBuffer(), cacheControl: r.headers.get('Cache-Control'), expires: r.headers.get('Expires') };
  }
});
window.cpsPending = () => [...pendingTiles.values()].reduce((a, b) => a + b, 0);
// The tiles need a key: without one the map shows the countries only. A price profile (D196) makes them price tiles.
let profile = null;
const style = (withStations) => (pendingTiles.clear(), {
  version: 8,
  sources: withStations
    ? { countries: { type: 'geojson', data: origin + '/map/countries.geojson' },
        stations: { type: 'vector', tiles: ['cps://tiles' + (profile ? '/v1/tiles/prices/' + profile.id : '/v1/tiles/stations') + '/{z}/{x}/{y}.mvt'], minzoom: 0, maxzoom: 20 } }
    : { countries: { type: 'geojson', data: origin + '/map/countries.geojson' } },
  layers: withStations ? base.concat(stationLayers(profile && profile.energy)) : base,
});
const map = new maplibregl.Map({
  container: 'map', style: style(key !== ''), center: [2.3522, 48.8566], zoom: 5, hash: true,
  transformRequest: (url) => (url.startsWith(origin + '/v1/') && key ? { url, headers: { 'api-key': key } } : { url }),
});
window.cpsMap = map;
window.cpsProfile = () => profile;
// A key kept from before: its price profile again (the map starts with the plain tiles meanwhile).
if (key) priceProfile().then((p) => { profile = p; if (p) map.setStyle(style(true), { diff: false }); });
map.addControl(new maplibregl.NavigationControl());
map.on('error', (e) => { $('status').textContent = 'Map: ' + ((e.error && e.error.message) || 'error'); });
$('keyform').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  key = $('key').value.trim();
  sessionStorage.setItem('cps-key', key);
  profile = key ? await priceProfile() : null;
  map.setStyle(style(key !== ''), { diff: false });
  $('status').textContent = 'Drawing stations…';
});
/** A price profile of the typed session with the direct-payment tariffs (a key without ReadCosts: none, plain station tiles). */
async function priceProfile() {
  const energy = Number($('energy').value) || 20;
  const duration = Number($('duration').value) || 60;
  try {
    const doc = await api('POST', '/v1/price_profiles', { data: { type: 'price_profile', attributes: { energy, duration, include_direct_payment: true }, relationships: { tariffs: { data: [] } } } });
    return { id: doc.data.id, energy, duration };
  } catch {
    return null;
  }
}
const legend = () => (profile ? ' Colour: cheapest direct-payment price per kWh for ' + profile.energy + ' kWh in ' + profile.duration + ' min, green 0.20 to red 0.80 EUR; grey: no price.' : '');
const pricing = () => { const n = window.cpsPending(); return n > 0 ? ' Pricing ' + n + ' stations of these tiles…' : ''; };
map.on('idle', () => { if (key) $('status').textContent = 'Zoom ' + map.getZoom().toFixed(1) + ': click a cluster to zoom in, a station for its prices.' + legend() + pricing(); });
const api = async (method, path, body) => {
  const r = await fetch(origin + path, { method, headers: { 'api-key': key, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
  const doc = await r.json();
  if (!r.ok) throw new Error((doc.errors && doc.errors[0] && doc.errors[0].title) || ('HTTP ' + r.status));
  return doc;
};
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
map.on('click', 'clusters', (e) => {
  const f = e.features[0];
  if (f.properties.station_id) return showStation(f.properties.station_id, f.geometry.coordinates, f.properties);
  map.easeTo({ center: f.geometry.coordinates, zoom: f.properties.expansion_zoom });
});
map.on('click', 'stations', (e) => showStation(e.features[0].properties.id, e.features[0].geometry.coordinates, e.features[0].properties));
for (const l of ['clusters', 'stations']) {
  map.on('mouseenter', l, () => { map.getCanvas().style.cursor = 'pointer'; });
  map.on('mouseleave', l, () => { map.getCanvas().style.cursor = ''; });
}
// Trip plans (D267–D271): two clicks on the map (not on a station) are the route's ends; the plan's
// GeoJSON draws the straight route and the stops, the panel lists them with their prices.
let tripPoints = [];
map.on('click', (e) => {
  if (!$('trip').checked || !key) return;
  const layers = ['clusters', 'stations'].filter((l) => map.getLayer(l));
  if (layers.length > 0 && map.queryRenderedFeatures(e.point, { layers }).length > 0) return;
  tripPoints.push([e.lngLat.lng, e.lngLat.lat]);
  if (tripPoints.length === 1) {
    $('tripinfo').textContent = 'Start set: click the destination.';
    drawTrip({ type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: tripPoints[0] }, properties: { kind: 'start' } }] });
    return;
  }
  const route = tripPoints;
  tripPoints = [];
  planTrip(route);
});
function drawTrip(fc) {
  const src = map.getSource('trip');
  if (src) return src.setData(fc);
  map.addSource('trip', { type: 'geojson', data: fc });
  map.addLayer({ id: 'trip-line', type: 'line', source: 'trip', filter: ['==', ['geometry-type'], 'LineString'], paint: { 'line-color': '#3949ab', 'line-width': 4 } });
  map.addLayer({ id: 'trip-stops', type: 'circle', source: 'trip', filter: ['==', ['geometry-type'], 'Point'], paint: { 'circle-color': '#3949ab', 'circle-radius': 9, 'circle-stroke-color': '#fff', 'circle-stroke-width': 2 } });
}
async function planTrip(route) {
  $('tripinfo').textContent = 'Planning…';
  const body = { data: { type: 'trip_plan_request', attributes: { route: { coordinates: route }, start_soc: Number($('startsoc').value) },
    relationships: { vehicle: { data: { type: 'car', id: $('car').value.trim() } } } } };
  const r = await fetch(origin + '/v1/trip_plans', { method: 'POST', headers: { 'api-key': key, 'Content-Type': 'application/json', Accept: 'application/geo+json' }, body: JSON.stringify(body) });
  const doc = await r.json();
  if (!r.ok) {
    const e = doc.errors && doc.errors[0];
    drawTrip({ type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'LineString', coordinates: route }, properties: {} }] });
    $('tripinfo').textContent = 'No plan: ' + (e ? e.title + (e.detail ? ' (' + e.detail + ')' : '') : 'HTTP ' + r.status);
    return;
  }
  drawTrip(doc);
  window.cpsTrip = doc;
  const t = doc.features[0].properties;
  const stops = doc.features.filter((f) => f.properties.kind === 'stop');
  $('tripinfo').innerHTML = '<b>' + (t.distance / 1000).toFixed(1) + ' km, ' + stops.length + ' stop(s), ' + t.price.toFixed(2) + ' ' + esc(t.currency) + ', arrival at ' + t.arrival_soc.toFixed(0) + ' %</b>' +
    '<ol id="tripstops" class="prices">' + stops.map((f) => { const p = f.properties; return '<li>' + esc(p.name) + ': ' + p.charge_from_soc + ' → ' + p.departure_soc + ' %, ' + p.charging_minutes.toFixed(0) + ' min, ' + p.price.toFixed(2) + ' ' + esc(t.currency) + '</li>'; }).join('') + '</ol>';
}
async function showStation(id, at, tile) {
  const popup = new maplibregl.Popup({ maxWidth: '360px' }).setLngLat(at).setHTML('Loading…').addTo(map);
  try {
    const s = (await api('GET', '/v1/charging_stations/' + encodeURIComponent(id))).data;
    const a = s.attributes;
    const op = s.relationships.operator.data;
    const head = '<b>' + esc(a.name) + '</b><br>' + esc(a.address || '') + '<br>' +
      a.charge_points.map((c) => c.count + ' × ' + esc(c.plug) + ' ' + c.power + ' kW').join(', ') +
      (tile && tile.price !== undefined ? '<br>Cheapest without a contract: ' + Number(tile.price).toFixed(2) + ' ' + esc(tile.currency) : '');
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
    { method: 'GET', path: '/map', answers: { status: 200, mediaType: 'text/html' }, groups: null, body: false, admission: 'ops', notJsonApi: true, cache, handler: () => ({ status: 200, body: MAP_HTML, headers: { 'Content-Type': 'text/html; charset=utf-8' } }) },
    {
      method: 'GET',
      path: '/map/:file', answers: { status: 200, mediaType: 'application/javascript', otherMediaTypes: (s) => ({ 'text/css': { type: 'string' }, 'application/geo+json': s.CountryOutlines }) },
      groups: null,
      body: false,
      notJsonApi: true,
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
