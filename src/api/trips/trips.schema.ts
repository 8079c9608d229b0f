/** JSON Schema of the trip plan request (D267), compiled once. */
import { Const, Envelope, toMany, toOne, Type, type Static } from '../jsonapi/schemas.js';
import { validatorOf } from '../jsonapi/validate.js';
import { refinementSchema, routeSchema } from '../route-input.js';

export const MAX_TRIP_TARIFFS = 200;

const { Optional } = Type;
const percent = (min: number, max: number, description: string) => Optional(Type.Number({ minimum: min, maximum: max, description }));

export const TripBody = Envelope({
  type: Optional(Const('trip_plan_request')),
  attributes: Type.Object(
    {
      ...routeSchema,
      ...refinementSchema,
      consumption: Optional(Type.Number({ minimum: 1, maximum: 100, description: 'kWh/100 km; default the vehicle\'s average consumption' })),
      start_soc: percent(0, 100, 'State of charge at the start, percent (default 80)'),
      min_soc: percent(0, 99, 'Least state of charge at every arrival, percent (default 10)'),
      max_soc: percent(1, 100, 'Highest state of charge charged to, percent (default 80)'),
      time_value: Optional(Type.Number({ minimum: 0, maximum: 1000, description: 'Currency per hour of charging and detour (default 0)' })),
      detour_speed: Optional(Type.Number({ minimum: 5, maximum: 130, description: 'km/h on a detour (default 50)' })),
      soc_step: Optional(Type.Unsafe<1 | 2 | 5 | 10>({ enum: [1, 2, 5, 10], description: 'Grid of charge levels, percent (default 5)' })),
    },
    { additionalProperties: false },
  ),
  relationships: Type.Object({
    tariffs: Optional(toMany('tariff', MAX_TRIP_TARIFFS)),
    vehicle: toOne('car'),
  }),
});
export type TripBody = Static<typeof TripBody>;
export type TripAttributes = TripBody['data']['attributes'];

export const validateTripPlan = validatorOf(TripBody);
