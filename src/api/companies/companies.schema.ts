/** JSON Schemas of the company endpoints (endpoint 7, D46), compiled once at module load. */
import { envelope } from '../jsonapi/schemas.js';
import { compile, UUID } from '../jsonapi/validate.js';

const companyRef = {
  type: 'object',
  required: ['id'],
  properties: { type: { const: 'company' }, id: { type: 'string', minLength: 1, maxLength: 100 } },
} as const;

const toOneRef = { type: 'object', properties: { data: companyRef } } as const;

const idList = { type: 'array', maxItems: 1000 } as const;

export interface CompanyRefBody {
  type?: 'company';
  id: string;
}

export interface CompanyPutBody {
  data: {
    id: string;
    type: 'company';
    attributes: {
      name: string;
      version: number;
      url?: string;
      is_cpo: boolean;
      is_emp: boolean;
      external_source_mapping: {
        ext_a_ids?: unknown[];
        ext_b_names?: string[];
        ext_b_charge_card_ids?: unknown[];
        sheet_names?: unknown[];
        ext_c_operator_ids?: unknown[];
        evse_operator_ids?: string[];
      };
    };
    relationships: {
      supported_emps: { data: CompanyRefBody[] };
      cpo_group?: { data?: CompanyRefBody };
      emp_group?: { data?: CompanyRefBody };
    };
  };
}

export const validateCompanyPut = compile<CompanyPutBody>(envelope({
  required: ['id', 'type', 'attributes', 'relationships'],
  properties: {
    id: UUID,
    type: { const: 'company' },
    attributes: {
      type: 'object',
      required: ['name', 'version', 'is_cpo', 'is_emp', 'external_source_mapping'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200 },
        version: { type: 'integer', minimum: 1, description: 'Optimistic lock (D47): 1 to create, the stored version + 1 to update (read it from the last answer); any other value answers 409 Version conflict and changes nothing.', examples: [1, 4] },
        url: { type: 'string', maxLength: 2000 },
        is_cpo: { type: 'boolean' },
        is_emp: { type: 'boolean' },
        external_source_mapping: {
          type: 'object',
          properties: {
            ext_a_ids: idList,
            ext_b_names: { ...idList, items: { type: 'string', maxLength: 200 } },
            ext_b_charge_card_ids: idList,
            sheet_names: idList,
            ext_c_operator_ids: idList,
            evse_operator_ids: { ...idList, items: { type: 'string', minLength: 1, maxLength: 20 } },
          },
        },
      },
    },
    relationships: {
      type: 'object',
      required: ['supported_emps'],
      properties: {
        supported_emps: {
          type: 'object',
          required: ['data'],
          properties: { data: { type: 'array', maxItems: 10000, items: companyRef } },
        },
        cpo_group: toOneRef,
        emp_group: toOneRef,
      },
    },
  },
}));
