/** JSON Schemas of the company endpoints (endpoint 7, D46), compiled once at module load. */
import { bool, Const, Envelope, ref, Type, type Static } from '../jsonapi/schemas.js';
import { validatorOf } from '../jsonapi/validate.js';

const { Optional } = Type;
const companyRef = ref('company', 100);
const toOneRef = Optional(Type.Object({ data: Optional(companyRef) }));
/** An id list of the external sources: strings, at most 1000 (D291: as the answer's schema states them). */
const idList = Optional(Type.Array(Type.String(), { maxItems: 1000 }));
const names = (maxLength: number, minLength?: number) =>
  Optional(Type.Array(Type.String({ ...(minLength !== undefined ? { minLength } : {}), maxLength }), { maxItems: 1000 }));

export const CompanyPutBody = Envelope({
  id: Type.String({ format: 'uuid' }),
  type: Const('company'),
  attributes: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 200 }),
    version: Type.Integer({ minimum: 1, description: 'Optimistic lock (D47): 1 to create, the stored version + 1 to update (read it from the last answer); any other value answers 409 Version conflict and changes nothing.', examples: [1, 4] }),
    url: Optional(Type.String({ maxLength: 2000 })),
    is_cpo: bool,
    is_emp: bool,
    external_source_mapping: Type.Object({
      ext_a_ids: idList,
      ext_b_names: names(200),
      ext_b_charge_card_ids: idList,
      sheet_names: idList,
      ext_c_operator_ids: idList,
      evse_operator_ids: names(20, 1),
    }),
  }),
  relationships: Type.Object({
    supported_emps: Type.Object({ data: Type.Array(companyRef, { maxItems: 10000 }) }),
    cpo_group: toOneRef,
    emp_group: toOneRef,
  }),
});
export type CompanyPutBody = Static<typeof CompanyPutBody>;

export const validateCompanyPut = validatorOf(CompanyPutBody);
