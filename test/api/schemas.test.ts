/**
 * Validators compile on first use (src/api/jsonapi/validate.ts), so a schema that AJV's strict
 * mode refuses would otherwise show only when its route is first called: every schema declared by
 * the route table's modules compiles here.
 */
import { describe, expect, it } from 'vitest';
import { ajv, declaredSchemas } from '../../src/api/jsonapi/validate.js';
import '../../src/api/routes.js';

describe('request schemas', () => {
  it('every declared schema compiles under strict mode', () => {
    const schemas = declaredSchemas();
    expect(schemas.length).toBeGreaterThanOrEqual(18);
    for (const s of schemas) expect(() => ajv.compile(s), JSON.stringify(s).slice(0, 120)).not.toThrow();
  });
});
