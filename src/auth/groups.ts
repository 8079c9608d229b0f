/** Authorization groups (spec "Authentication", D2, D63) and their snake-case names for error titles. */
export const GROUPS = [
  'ReadStations',
  'ReadStationsWithAvailability',
  'ViewPriceBenchmark',
  'ReadCosts',
  'WriteUserFeedback',
  'WriteCrmDevices',
  'WriteTariffs',
  'ReadTariffs',
  'ReadSimpleTariffs',
  'ReadVehicles',
  'ReadVehiclesFull',
  'ReadChargePointStatistics',
  'ReadCountryStatistics',
  'Admin',
  'WriteAvailability',
  'ReadMetrics',
  'UserAccounts',
] as const;

export type Group = (typeof GROUPS)[number];

/** Bit of each group in a key's group mask. */
export const GROUP_BIT: Readonly<Record<Group, number>> = Object.fromEntries(
  GROUPS.map((g, i) => [g, 1 << i]),
) as Record<Group, number>;

export const ALL_GROUPS_MASK = (1 << GROUPS.length) - 1;

export function snakeCase(group: Group): string {
  return group.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
}

export function isGroup(s: string): s is Group {
  return (GROUPS as readonly string[]).includes(s);
}

export function maskOf(groups: Iterable<string>): number {
  let m = 0;
  for (const g of groups) if (isGroup(g)) m |= GROUP_BIT[g];
  return m;
}

/**
 * Parses the CLI's group list: `all`, `none`, or a CSV of group names (PascalCase or snake_case).
 * Throws on an unknown name.
 */
export function parseGroupList(csv: string): Group[] {
  const v = csv.trim();
  if (v === 'all') return [...GROUPS];
  if (v === 'none') return [];
  const out: Group[] = [];
  for (const raw of v.split(',').map((s) => s.trim()).filter((s) => s.length > 0)) {
    const g = GROUPS.find((x) => x === raw || snakeCase(x) === raw);
    if (g === undefined) throw new Error(`unknown group "${raw}"; groups: ${GROUPS.join(', ')}`);
    if (!out.includes(g)) out.push(g);
  }
  if (out.length === 0) throw new Error('no groups given; use a CSV of groups, "all" or "none"');
  return out;
}
