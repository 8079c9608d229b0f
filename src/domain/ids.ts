/**
 * Computed IDs (D17): deterministic name-based UUIDs (version 5) in one fixed namespace shared by
 * every feature. The name is the parts joined with `:` (e.g. `DE:2022:12` for a country statistic).
 */
import { v5 as uuidv5 } from 'uuid';

/** uuid5(NAMESPACE_URL, "urn:charging-price-service:computed-ids:v1"); never change it. */
export const COMPUTED_ID_NAMESPACE = '4476d08e-59a3-5b4e-b179-f2c4061cf18e';

export function computedId(...parts: ReadonlyArray<string | number>): string {
  return uuidv5(parts.join(':'), COMPUTED_ID_NAMESPACE);
}
