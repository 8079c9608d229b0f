/** GeoJSON (RFC 7946) answers: the country outlines of the map page, stations and price previews (D237). */
import { Closed, Nullable, PageLinks, Type, type TObject, type TProperties } from './common.js';
import { listAttributes, StationListMeta } from './stations.js';

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

/**
 * A FeatureCollection of stations (D237): a Point per station at [longitude, latitude], its
 * list-shape attributes, its operator's id and name and `more` (a price preview's attributes) as
 * flat properties; the JSON answer's `meta` (and `links`) as foreign members.
 */
export function StationFeatures(more: TProperties, meta: TObject, links?: TObject) {
  return Closed({
    type: Type.Literal('FeatureCollection'),
    features: Type.Array(
      Closed({
        type: Type.Literal('Feature'),
        id: Type.String({ description: 'The station id' }),
        geometry: Closed({
          type: Type.Literal('Point'),
          coordinates: Type.Array(Type.Number(), { minItems: 2, maxItems: 2, description: '[longitude, latitude]' }),
        }),
        properties: Closed({
          ...listAttributes,
          operator_id: Nullable('string', { description: 'The operator company (null when none, or deleted: D21)' }),
          operator_name: Nullable('string'),
          ...more,
        }),
      }),
    ),
    meta,
    ...(links === undefined ? {} : { links }),
  });
}

export const StationSearchFeatures = StationFeatures({}, StationListMeta, PageLinks);
