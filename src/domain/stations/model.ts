/** The station record as the snapshot stores it (one row per station, decoded). */

export interface ChargePointRecord {
  plug: string;
  energy_type: 'ac' | 'dc';
  power: number;
  count: number;
  evse_ids: string[];
}

export interface FacilityDetail {
  facility_types: string[];
  name: string | null;
  longitude: number;
  latitude: number;
}

export interface StationRecord {
  id: string;
  name: string;
  latitude: number;
  longitude: number;
  country: string;
  address: string;
  operator_id: string | null;
  evse_operator: string | null;
  evse_ids: string[];
  free_parking: boolean | null;
  free_charging: boolean | null;
  parking_type: string | null;
  facilities: string[];
  charge_points: ChargePointRecord[];
  source_label: string | null;
  source_id: string | null;
  version: number;
  created_at: number;
  updated_at: number;
  /** Language code → text (D22), or null when the station has none. */
  parking_description: Record<string, string> | null;
  facility_details: FacilityDetail[];
  /** Active promotion campaign (D28), or null. */
  branding: { map_pin_icon_url: string } | null;
}
