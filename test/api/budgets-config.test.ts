// D176: ADMISSION_BUDGETS parsing.
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_BUDGETS, loadConfig } from '../../src/config.js';

describe('ADMISSION_BUDGETS (D176)', () => {
  it('defaults, overrides per class, and off', () => {
    expect(loadConfig({}).admissionBudgets).toEqual(DEFAULT_BUDGETS);
    expect(loadConfig({ ADMISSION_BUDGETS: 'read:0.7, cost:0.1' }).admissionBudgets).toEqual({ ...DEFAULT_BUDGETS, read: 0.7, cost: 0.1 });
    expect(loadConfig({ ADMISSION_BUDGETS: 'off' }).admissionBudgets).toBeNull();
  });

  it('refuses unknown classes and shares outside (0, 1]', () => {
    for (const v of ['price:0.5', 'read', 'read:0', 'read:1.5', 'read:x', 'probe:0.2']) {
      expect(() => loadConfig({ ADMISSION_BUDGETS: v }), v).toThrow(ConfigError);
    }
  });
});
