/** GeoJSON (RFC 7946) answers: the country outlines of the map page. */
import { Closed, Type } from './common.js';

/** A position or a nested array of positions, at any depth (RFC 7946 §3.1). */
export const Coordinates = Type.Unsafe<unknown[]>({
  type: 'array',
  items: { anyOf: [{ type: 'number' }, { $ref: '#/components/schemas/Coordinates' }] },
});

export const Geometry = Closed({
  type: Type.Union(['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon'].map((t) => Type.Literal(t))),
  coordinates: Coordinates,
});

/** `/map/countries.geojson`: the outlines of world-atlas' countries-50m, with their names. */
export const CountryOutlines = Closed({
  type: Type.Literal('FeatureCollection'),
  features: Type.Array(
    Closed({
      type: Type.Literal('Feature'),
      id: Type.Optional(Type.String({ description: 'ISO 3166-1 numeric code' })),
      properties: Closed({ name: Type.String() }),
      geometry: Type.Union([Geometry, Type.Null()]),
    }),
  ),
});
