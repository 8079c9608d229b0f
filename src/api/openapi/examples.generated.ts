/** Example answers of the OpenAPI description, captured by `npm run openapi:examples` from the running service; do not edit. */
export const EXAMPLE_RESPONSES: Readonly<Record<string, { status: number; body: unknown }>> = {
  "PUT /v1/companies/:id": {
    "status": 201,
    "body": {
      "data": {
        "id": "7d6f1e2a-3b4c-4d5e-8f60-718293a4b5c6",
        "type": "company",
        "attributes": {
          "name": "Example Mobility",
          "created_at": 1795944193579,
          "updated_at": 1795944193579,
          "version": 1,
          "url": null,
          "is_cpo": false,
          "is_emp": true,
          "external_source_mapping": {
            "ext_a_ids": null,
            "ext_b_names": null,
            "ext_b_charge_card_ids": null,
            "sheet_names": null,
            "ext_c_operator_ids": null,
            "evse_operator_ids": []
          }
        },
        "relationships": {
          "supported_emps": {
            "data": []
          },
          "cpo_group": {
            "data": null
          },
          "emp_group": {
            "data": null
          }
        }
      }
    }
  },
  "PUT /v2/tariffs/:id": {
    "status": 201,
    "body": {
      "data": {
        "id": "8e7f2a3b-4c5d-4e6f-9071-8293a4b5c6d7",
        "type": "tariff",
        "attributes": {
          "name": "Example Flex",
          "created_at": 1795944194092,
          "updated_at": 1795944194092,
          "version": 1,
          "monthly_min_sales": 0,
          "monthly_fee": 0,
          "yearly_service_fee": 0,
          "is_flat_rate": false,
          "is_direct_payment": false,
          "provider_customer_only": false,
          "currency": "EUR",
          "notes": null,
          "url": null,
          "no_price_policy": "inherit",
          "no_price_reason": "inherit",
          "apply_prices_to_sub_tariff": null,
          "supported_countries": [],
          "tags": [],
          "prices": [
            {
              "restrictions": [],
              "decomposition": [
                {
                  "dimension": "kwh",
                  "price": 0.45,
                  "range_gte": null,
                  "range_lt": null,
                  "billing_increment": null,
                  "currency": null,
                  "time_of_day_start": null,
                  "time_of_day_end": null,
                  "is_average_price": false,
                  "occupancy_gte": null,
                  "occupancy_lt": null
                }
              ]
            }
          ],
          "is_card_payment": false,
          "is_secondary_tariff": false,
          "existing_customer_only": false,
          "integration_status": "complete",
          "system_tags": [],
          "branding": null,
          "charge_card_id": null
        },
        "relationships": {
          "vehicle_brands": {
            "data": []
          },
          "super_tariffs": {
            "data": []
          },
          "emp": {
            "data": {
              "type": "company",
              "id": "7d6f1e2a-3b4c-4d5e-8f60-718293a4b5c6"
            }
          },
          "cpo": {
            "data": null
          }
        }
      }
    }
  },
  "POST /v1/price_profiles": {
    "status": 201,
    "body": {
      "data": {
        "type": "price_profile",
        "id": "a727cdc1d954239b07bbe6f7328e99a9",
        "attributes": {
          "battery_range": [
            10,
            80
          ],
          "energy": null,
          "duration": null,
          "currency": "EUR",
          "start_time": 720,
          "start_date": null,
          "allow_unbalanced_load": false,
          "include_direct_payment": false,
          "charge_points_power_lte": null,
          "expires_at": "2026-12-06T09:23:14.299Z"
        },
        "relationships": {
          "tariffs": {
            "data": [
              {
                "type": "tariff",
                "id": "18663f49-0af6-550d-9681-4af1727bdf22"
              }
            ]
          },
          "vehicle": {
            "data": {
              "type": "car",
              "id": "01936832-c987-da0e-cbb3-9f6793becdfe"
            }
          }
        },
        "links": {
          "tiles": "/v1/tiles/prices/a727cdc1d954239b07bbe6f7328e99a9/{z}/{x}/{y}.mvt"
        }
      }
    }
  },
  "GET /health": {
    "status": 200,
    "body": {
      "status": "ok",
      "snapshot": {
        "format_version": 4,
        "version": "c56205466c0f666f",
        "built_at": "2022-12-05T00:00:00.000Z",
        "rates_date": "2024-12-31"
      },
      "uptime_seconds": 3.25
    }
  },
  "GET /ready": {
    "status": 200,
    "body": {
      "status": "ready",
      "checks": {
        "snapshot": "ok",
        "pool": "ok",
        "live_store": "ok"
      },
      "snapshot": {
        "version": "c56205466c0f666f"
      }
    }
  },
  "GET /attribution": {
    "status": 200,
    "body": {
      "meta": {
        "attribution": "Charging station data: © Bundesnetzagentur, Ladesäulenregister (as of 2019-07-19), licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/); and data.gouv.fr / Etalab, Fichier consolidé des Bornes de Recharge pour Véhicules Électriques (as of 2022-12-05), Licence Ouverte 2.0 (https://www.etalab.gouv.fr/licence-ouverte-open-licence/). Charge point powers for part of the French stations: loco-philippe/IRVE (© 2024 Philippe Thomy, MIT license; IRVE / QualiCharge data). Data modified: normalized, grouped into stations, plug names and powers harmonized, most French powers estimated p…",
        "snapshot": {
          "version": "c56205466c0f666f",
          "built_at": "2022-12-05T00:00:00.000Z"
        }
      }
    }
  },
  "GET /metrics": {
    "status": 200,
    "body": "# HELP process_cpu_user_seconds_total Total user CPU time spent in seconds.\n# TYPE process_cpu_user_seconds_total counter\nprocess_cpu_user_seconds_total 0.522498\n\n# HELP process_cpu_system_seconds_total Total system CPU time spent in seconds.\n# TYPE process_cpu_system_seconds_total counter\nprocess_cpu_system_seconds_total 0.024816\n\n# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 0.547314\n\n# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n# TYPE process_sta…"
  },
  "GET /openapi.json": {
    "status": 200,
    "body": {
      "openapi": "3.1.0",
      "info": {
        "title": "Charging Price Service",
        "version": "0.1.0",
        "description": "EV charging prices, station search and tariffs. JSON:API documents; the behaviour is specified in docs/api-spec.md and docs/decisions.md.",
        "license": {
          "name": "MIT",
          "identifier": "MIT"
        }
      },
      "servers": [
        {
          "url": "/"
        }
      ],
      "tags": [
        {
          "name": "Operations"
        },
        {
          "name": "Stations"
        }
      ],
      "paths": {},
      "components": {}
    }
  },
  "GET /docs": {
    "status": 200,
    "body": "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Charging Price Service API</title>\n<link rel=\"stylesheet\" href=\"/docs/swagger-ui.css\">\n</head>\n<body>\n<div id=\"swagger-ui\"></div>\n<script src=\"/docs/swagger-ui-bundle.js\"></script>\n<script src=\"/docs/init.js\"></script>\n</body>\n</html>\n"
  },
  "GET /docs/:file": {
    "status": 200,
    "body": "window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0 });\n"
  },
  "GET /v1/charging_stations": {
    "status": 200,
    "body": {
      "data": [
        {
          "id": "cd49bc8b-98cf-5606-ba3b-33a6ae6cfe86",
          "type": "charging_station",
          "attributes": {
            "name": "Paris | SAGS Parking Lobau",
            "latitude": 48.856796,
            "longitude": 2.35387,
            "country": "FR",
            "address": "4 Rue de Lobau 75004 Paris",
            "free_parking": null,
            "free_charging": false,
            "evse_operator": "FR*V75",
            "evse_ids": [],
            "charge_points": [
              {
                "plug": "ccs",
                "energy_type": "dc",
                "power": 50,
                "count": 7,
                "evse_ids": [],
                "available_count": null
              },
              {
                "plug": "chademo",
                "energy_type": "dc",
                "power": 50,
                "count": 7,
                "evse_ids": [],
                "available_count": null
              }
            ],
            "facilities": [],
            "parking_type": "parking_lot",
            "created_at": 1670198400000,
            "updated_at": 1670198400000,
            "version": 1,
            "source_label": "irve"
          },
          "relationships": {
            "operator": {
              "data": {
                "type": "company",
                "id": "ac96f6c4-8933-5e71-b606-46d3d63b8777"
              }
            }
          },
          "meta": {
            "branding": null
          }
        },
        {
          "id": "c21ed99d-643d-5397-8b29-b5aa81ea62cf",
          "type": "charging_station",
          "attributes": {
            "name": "Paris | Place Saint-Gervais 4",
            "latitude": 48.856052,
            "longitude": 2.353752,
            "country": "FR",
            "address": "4 Place Saint-Gervais 75004 Paris",
            "free_parking": null,
            "free_charging": false,
            "evse_operator": "FR*V75",
            "evse_ids": [],
            "charge_points": [
              {
                "plug": "ccs",
                "energy_type": "dc",
                "power": 50,
                "count": 2,
                "evse_ids": [],
                "available_count": null
              },
              {
                "plug": "chademo",
                "energy_type": "dc",
                "power": 50,
                "count": 2,
                "evse_ids": [],
                "available_count": null
              }
            ],
            "facilities": [],
            "parking_type": "on_street",
            "created_at": 1670198400000,
            "updated_at": 1670198400000,
            "version": 1,
            "source_label": "irve"
          },
          "relationships": {
            "operator": {
              "data": {
                "type": "company",
                "id": "ac96f6c4-8933-5e71-b606-46d3d63b8777"
              }
            }
          },
          "meta": {
            "branding": null
          }
        }
      ],
      "included": [
        {
          "id": "ac96f6c4-8933-5e71-b606-46d3d63b8777",
          "type": "company",
          "attributes": {
            "name": "TOTALENERGIES"
          }
        }
      ],
      "meta": {
        "more_available": true,
        "disabled_ext_b_countries": [],
        "snapshot_version": "c56205466c0f666f"
      },
      "links": {
        "self": "/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=1000&page[size]=2&page[number]=1",
        "first": "/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=1000&page[size]=2&page[number]=1",
        "next": "/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=1000&page[size]=2&page[number]=2"
      }
    }
  },
  "GET /v1/charging_stations/clusters": {
    "status": 200,
    "body": {
      "data": [
        {
          "id": "z9-2",
          "type": "station_cluster",
          "attributes": {
            "count": 292,
            "latitude": 48.86077632166169,
            "longitude": 2.3224647260274045,
            "bbox": [
              2.267881,
              48.82076,
              2.383037,
              48.91506
            ],
            "expansion_zoom": 10,
            "max_power": 50,
            "plug_counts": {
              "ccs": 55,
              "chademo": 55,
              "schuko": 289,
              "type2": 291
            }
          }
        },
        {
          "id": "z9-3",
          "type": "station_cluster",
          "attributes": {
            "count": 35,
            "latitude": 48.872874225626475,
            "longitude": 2.174317571428568,
            "bbox": [
              2.112804,
              48.838587,
              2.213727,
              48.906963
            ],
            "expansion_zoom": 10,
            "max_power": 50,
            "plug_counts": {
              "ccs": 5,
              "chademo": 3,
              "schuko": 30,
              "type2": 32
            }
          }
        }
      ],
      "included": [
        {
          "id": "72e6eb54-563a-59ca-ab02-f6ad9db2265d",
          "type": "company",
          "attributes": {
            "name": "Power Dot France"
          }
        }
      ],
      "meta": {
        "more_available": true,
        "disabled_ext_b_countries": [],
        "snapshot_version": "c56205466c0f666f"
      },
      "links": {
        "self": "/v1/charging_stations/clusters?filter[latitude.gte]=48.7&filter[latitude.lte]=49&filter[longitude.gte]=2.1&filter[longitude.lte]=2.6&page[size]=3&zoom=9&page[number]=1",
        "first": "/v1/charging_stations/clusters?filter[latitude.gte]=48.7&filter[latitude.lte]=49&filter[longitude.gte]=2.1&filter[longitude.lte]=2.6&page[size]=3&zoom=9&page[number]=1",
        "next": "/v1/charging_stations/clusters?filter[latitude.gte]=48.7&filter[latitude.lte]=49&filter[longitude.gte]=2.1&filter[longitude.lte]=2.6&page[size]=3&zoom=9&page[number]=2"
      }
    }
  },
  "GET /v1/tiles/stations/:z/:x/:y": {
    "status": 200,
    "body": "(a Mapbox Vector Tile)"
  },
  "GET /v1/tiles/stations.json": {
    "status": 200,
    "body": {
      "tilejson": "3.0.0",
      "name": "charging stations",
      "scheme": "xyz",
      "tiles": [
        "http://127.0.0.1:8080/v1/tiles/stations/{z}/{x}/{y}.mvt?filter%5Bcharge_points.power.gte%5D=50"
      ],
      "minzoom": 0,
      "maxzoom": 20,
      "bounds": [
        2.00075,
        48.600359,
        13.75196,
        55.7
      ],
      "center": [
        6.6907170646663285,
        50.89314857682365,
        5
      ],
      "attribution": "Charging station data: © Bundesnetzagentur, Ladesäulenregister (as of 2019-07-19), licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/); and data.gouv.fr / Etalab, Fichier consolidé des Bornes de Recharge pour Véhicules Électriques (as of 2022-12-05), Licence Ouverte 2.0 (https://www.etalab.gouv.fr/licence-ouverte-open-licence/). Charge point powers for part of the French stations: loco-philippe/IRVE (© 2024 Philippe Thomy, MIT license; IRVE / QualiCharge data). Data modified: normalized, grouped into stations, plug names and powers harmonized, most French powers estimated p…",
      "vector_layers": [
        {
          "id": "clusters",
          "minzoom": 0,
          "maxzoom": 13,
          "description": "Station clusters (D190); a cluster of one has station_id",
          "fields": {
            "count": "Number",
            "max_power": "Number",
            "expansion_zoom": "Number",
            "station_id": "String",
            "count_<plug>": "Number"
          }
        },
        {
          "id": "stations",
          "minzoom": 14,
          "maxzoom": 20,
          "description": "Charging stations (D190)",
          "fields": {
            "id": "String",
            "name": "String",
            "operator_id": "String",
            "operator_name": "String",
            "max_power": "Number",
            "plugs": "String",
            "charge_point_count": "Number",
            "free_charging": "Boolean",
            "available_count": "Number"
          }
        }
      ]
    }
  },
  "GET /v1/price_profiles/:id": {
    "status": 200,
    "body": {
      "data": {
        "type": "price_profile",
        "id": "a727cdc1d954239b07bbe6f7328e99a9",
        "attributes": {
          "battery_range": [
            10,
            80
          ],
          "energy": null,
          "duration": null,
          "currency": "EUR",
          "start_time": 720,
          "start_date": null,
          "allow_unbalanced_load": false,
          "include_direct_payment": false,
          "charge_points_power_lte": null,
          "expires_at": "2026-12-06T09:23:14.299Z"
        },
        "relationships": {
          "tariffs": {
            "data": [
              {
                "type": "tariff",
                "id": "18663f49-0af6-550d-9681-4af1727bdf22"
              }
            ]
          },
          "vehicle": {
            "data": {
              "type": "car",
              "id": "01936832-c987-da0e-cbb3-9f6793becdfe"
            }
          }
        },
        "links": {
          "tiles": "/v1/tiles/prices/a727cdc1d954239b07bbe6f7328e99a9/{z}/{x}/{y}.mvt"
        }
      }
    }
  },
  "GET /v1/tiles/prices/:profile_id/:z/:x/:y": {
    "status": 200,
    "body": "(a Mapbox Vector Tile)"
  },
  "GET /map": {
    "status": 200,
    "body": "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Charging stations — map</title>\n<link rel=\"icon\" href=\"data:,\">\n<link rel=\"stylesheet\" href=\"/map/maplibre-gl.css\">\n<style>\nhtml, body { margin: 0; height: 100%; font: 14px system-ui, sans-serif; }\n#map { position: absolute; inset: 0; }\n#panel { position: absolute; top: 10px; left: 10px; z-index: 2; background: #fff; padding: 8px 10px; border-radius: 6px; box-shadow: 0 1px 4px rgba(0,0,0,.3); max-width: 340px; }\n#panel input { width: 12em; }\n#panel label { …"
  },
  "GET /map/:file": {
    "status": 200,
    "body": "'use strict';\nconst $ = (id) => document.getElementById(id);\nconst origin = location.origin;\nlet key = sessionStorage.getItem('cps-key') || '';\n$('key').value = key;\nconst base = [\n  { id: 'background', type: 'background', paint: { 'background-color': '#dfe9f3' } },\n  { id: 'land', type: 'fill', source: 'countries', paint: { 'fill-color': '#f6f4ee' } },\n  { id: 'borders', type: 'line', source: 'countries', paint: { 'line-color': '#9a9a9a', 'line-width': 0.7 } },\n];\nconst radius = ['step', ['get', 'count'], 5, 10, 9, 100, 14, 1000, 20, 10000, 26];\n// With a price profile: the cheapest price per…"
  },
  "GET /v1/charging_stations/:id": {
    "status": 200,
    "body": {
      "data": {
        "id": "006552ff-0c7f-5334-896a-eb1f5346b444",
        "type": "charging_station",
        "attributes": {
          "name": "Paris | Rue de Martignac 2",
          "latitude": 48.859367,
          "longitude": 2.319539,
          "country": "FR",
          "address": "2 Rue de Martignac 75007 Paris",
          "free_parking": null,
          "free_charging": false,
          "evse_ids": [],
          "charge_points": [
            {
              "plug": "type2",
              "energy_type": "ac",
              "power": 7,
              "count": 6
            },
            {
              "plug": "schuko",
              "energy_type": "ac",
              "power": 3.7,
              "count": 6
            }
          ],
          "facilities": [],
          "parking_type": "on_street",
          "version": 1,
          "source_label": "irve",
          "parking_description": null,
          "facility_details": []
        },
        "relationships": {
          "operator": {
            "data": {
              "type": "company",
              "id": "ac96f6c4-8933-5e71-b606-46d3d63b8777"
            }
          }
        },
        "meta": {
          "branding": null
        }
      },
      "included": [
        {
          "id": "ac96f6c4-8933-5e71-b606-46d3d63b8777",
          "type": "company",
          "attributes": {
            "name": "TOTALENERGIES"
          }
        }
      ],
      "meta": {
        "snapshot_version": "c56205466c0f666f"
      }
    }
  },
  "GET /v1/charging_stations/statistics": {
    "status": 200,
    "body": {
      "data": [
        {
          "id": "01371972-a054-5d9f-8783-dfda45e7afd2",
          "type": "charge_point_statistics",
          "attributes": {
            "country": "FR",
            "power": 50,
            "plug": "ccs",
            "count": 4
          },
          "relationships": {
            "operator": {
              "data": {
                "type": "company",
                "id": "eca255fb-cbac-5a2c-bae4-6a6685997ba4"
              }
            }
          }
        },
        {
          "id": "024ecc64-8450-5f4e-b71f-ad6c51e4919f",
          "type": "charge_point_statistics",
          "attributes": {
            "country": "FR",
            "power": 50,
            "plug": "ccs",
            "count": 3
          },
          "relationships": {
            "operator": {
              "data": {
                "type": "company",
                "id": "50d213a0-bdec-5908-9e3e-7d395baee2c6"
              }
            }
          }
        }
      ]
    }
  },
  "GET /v1/country_statistics": {
    "status": 200,
    "body": {
      "data": [
        {
          "id": "97701ff5-b731-5508-ba51-0c42d89adb8e",
          "type": "country_statistics",
          "attributes": {
            "country": "DE",
            "year": 2022,
            "month": 12,
            "emp_count": 25,
            "cpo_count": 58,
            "charge_points": [
              {
                "type": "total",
                "count": 2843
              },
              {
                "type": "ac",
                "count": 2642
              }
            ],
            "top_cpos_by_charge_points": [
              {
                "type": "total",
                "cpo_counts": [
                  {
                    "cpo_id": "2b242e89-118a-53c0-944b-eb67719ac519",
                    "count": 1575
                  },
                  {
                    "cpo_id": "9ba7490d-a6ec-583c-aed1-d053b47f8261",
                    "count": 579
                  }
                ]
              },
              {
                "type": "ac",
                "cpo_counts": [
                  {
                    "cpo_id": "2b242e89-118a-53c0-944b-eb67719ac519",
                    "count": 1453
                  },
                  {
                    "cpo_id": "9ba7490d-a6ec-583c-aed1-d053b47f8261",
                    "count": 565
                  }
                ]
              }
            ]
          }
        }
      ],
      "meta": {
        "overall_count": 1
      },
      "links": {
        "self": "/v1/country_statistics?filter[country]=DE&page[size]=2&page[number]=1",
        "first": "/v1/country_statistics?filter[country]=DE&page[size]=2&page[number]=1",
        "last": "/v1/country_statistics?filter[country]=DE&page[size]=2&page[number]=1"
      }
    }
  },
  "POST /v1/charge_prices": {
    "status": 200,
    "body": {
      "data": [
        {
          "id": "8183c0c8-4860-53be-875d-5477b8a96527",
          "type": "charge_price",
          "attributes": {
            "provider": "Ohminix Drive (synthetic)",
            "tariff_name": "Ohminix Drive Unlimited",
            "url": "https://ohminix-drive.example",
            "monthly_min_sales": 0,
            "total_monthly_fee": 39,
            "flat_rate": true,
            "direct_payment": false,
            "is_card_payment": false,
            "provider_customer_tariff": false,
            "is_roaming": true,
            "is_promoted": false,
            "currency": "EUR",
            "tags": [],
            "system_tags": [],
            "start_time": 720,
            "branding": null,
            "charge_point_prices": [
              {
                "plug": "type2",
                "power": 7,
                "price": 0,
                "price_distribution": {},
                "blocking_fee_start": null,
                "no_price_reason": null,
                "is_average_price": false
              }
            ]
          },
          "relationships": {
            "tariff": {
              "data": {
                "type": "tariff",
                "id": "841ec2d6-1946-54ff-bd1f-7761fcd2cbbe"
              }
            }
          }
        },
        {
          "id": "b7152412-09b8-5e8e-8689-0daf9402c7d7",
          "type": "charge_price",
          "attributes": {
            "provider": "Ampera Mobility (synthetic)",
            "tariff_name": "Ampera Mobility Flex",
            "url": "https://ampera-mobility.example/tariffs/flex",
            "monthly_min_sales": 0,
            "total_monthly_fee": 0,
            "flat_rate": false,
            "direct_payment": false,
            "is_card_payment": false,
            "provider_customer_tariff": false,
            "is_roaming": true,
            "is_promoted": false,
            "currency": "EUR",
            "tags": [],
            "system_tags": [],
            "start_time": 720,
            "branding": null,
            "charge_point_prices": [
              {
                "plug": "type2",
                "power": 7,
                "price": 1.7999999999999998,
                "price_distribution": {
                  "minute": 1
                },
                "blocking_fee_start": null,
                "no_price_reason": null,
                "is_average_price": false
              }
            ]
          },
          "relationships": {
            "tariff": {
              "data": {
                "type": "tariff",
                "id": "d9ea1d09-48fe-5d5d-aeaa-a4f2374ccaab"
              }
            }
          }
        }
      ],
      "meta": {
        "charge_points": [
          {
            "plug": "type2",
            "power": 7,
            "duration": 60,
            "energy": 20
          }
        ]
      }
    }
  },
  "POST /v1/charge_prices/bulk": {
    "status": 200,
    "body": {
      "data": [
        {
          "id": "006552ff-0c7f-5334-896a-eb1f5346b444",
          "type": "charge_price_preview",
          "attributes": {
            "energy": 8.5855,
            "duration": 139.22432432432433,
            "price": 5.0654449999999995,
            "currency": "EUR"
          },
          "relationships": {
            "charging_station": {
              "data": {
                "type": "charging_station",
                "id": "006552ff-0c7f-5334-896a-eb1f5346b444"
              }
            }
          }
        }
      ]
    }
  },
  "POST /v1/charge_prices/area": {
    "status": 200,
    "body": {
      "data": [
        {
          "id": "cd49bc8b-98cf-5606-ba3b-33a6ae6cfe86",
          "type": "charge_price_preview",
          "attributes": {
            "energy": 8.5855,
            "duration": 139.22432432432433,
            "price": 5.0654449999999995,
            "currency": "EUR",
            "distance": 124.10598616752195,
            "charge_point": {
              "plug": "type2",
              "power": 22
            }
          },
          "relationships": {
            "charging_station": {
              "data": {
                "type": "charging_station",
                "id": "cd49bc8b-98cf-5606-ba3b-33a6ae6cfe86"
              }
            }
          }
        },
        {
          "id": "c21ed99d-643d-5397-8b29-b5aa81ea62cf",
          "type": "charge_price_preview",
          "attributes": {
            "energy": 8.5855,
            "duration": 139.22432432432433,
            "price": 5.0654449999999995,
            "currency": "EUR",
            "distance": 128.86268352443065,
            "charge_point": {
              "plug": "type2",
              "power": 22
            }
          },
          "relationships": {
            "charging_station": {
              "data": {
                "type": "charging_station",
                "id": "c21ed99d-643d-5397-8b29-b5aa81ea62cf"
              }
            }
          }
        }
      ],
      "included": [
        {
          "id": "cd49bc8b-98cf-5606-ba3b-33a6ae6cfe86",
          "type": "charging_station",
          "attributes": {
            "name": "Paris | SAGS Parking Lobau",
            "latitude": 48.856796,
            "longitude": 2.35387,
            "country": "FR",
            "address": "4 Rue de Lobau 75004 Paris",
            "free_parking": null,
            "free_charging": false,
            "evse_operator": "FR*V75",
            "evse_ids": [],
            "charge_points": [
              {
                "plug": "ccs",
                "energy_type": "dc",
                "power": 50,
                "count": 7,
                "evse_ids": [],
                "available_count": null
              },
              {
                "plug": "chademo",
                "energy_type": "dc",
                "power": 50,
                "count": 7,
                "evse_ids": [],
                "available_count": null
              }
            ],
            "facilities": [],
            "parking_type": "parking_lot",
            "created_at": 1670198400000,
            "updated_at": 1670198400000,
            "version": 1,
            "source_label": "irve"
          },
          "relationships": {
            "operator": {
              "data": {
                "type": "company",
                "id": "ac96f6c4-8933-5e71-b606-46d3d63b8777"
              }
            }
          },
          "meta": {
            "branding": null
          }
        },
        {
          "id": "c21ed99d-643d-5397-8b29-b5aa81ea62cf",
          "type": "charging_station",
          "attributes": {
            "name": "Paris | Place Saint-Gervais 4",
            "latitude": 48.856052,
            "longitude": 2.353752,
            "country": "FR",
            "address": "4 Place Saint-Gervais 75004 Paris",
            "free_parking": null,
            "free_charging": false,
            "evse_operator": "FR*V75",
            "evse_ids": [],
            "charge_points": [
              {
                "plug": "ccs",
                "energy_type": "dc",
                "power": 50,
                "count": 2,
                "evse_ids": [],
                "available_count": null
              },
              {
                "plug": "chademo",
                "energy_type": "dc",
                "power": 50,
                "count": 2,
                "evse_ids": [],
                "available_count": null
              }
            ],
            "facilities": [],
            "parking_type": "on_street",
            "created_at": 1670198400000,
            "updated_at": 1670198400000,
            "version": 1,
            "source_label": "irve"
          },
          "relationships": {
            "operator": {
              "data": {
                "type": "company",
                "id": "ac96f6c4-8933-5e71-b606-46d3d63b8777"
              }
            }
          },
          "meta": {
            "branding": null
          }
        }
      ],
      "meta": {
        "stations_considered": 87,
        "stations_priced": 84,
        "more_available": true
      }
    }
  },
  "POST /v1/charge_prices/route": {
    "status": 200,
    "body": {
      "data": [
        {
          "id": "cd49bc8b-98cf-5606-ba3b-33a6ae6cfe86",
          "type": "charge_price_preview",
          "attributes": {
            "energy": 8.5855,
            "duration": 139.22432432432433,
            "price": 5.0654449999999995,
            "currency": "EUR",
            "distance": 0,
            "detour": 124.10405914678599,
            "charge_point": {
              "plug": "type2",
              "power": 22
            }
          },
          "relationships": {
            "charging_station": {
              "data": {
                "type": "charging_station",
                "id": "cd49bc8b-98cf-5606-ba3b-33a6ae6cfe86"
              }
            }
          }
        },
        {
          "id": "c21ed99d-643d-5397-8b29-b5aa81ea62cf",
          "type": "charge_price_preview",
          "attributes": {
            "energy": 8.5855,
            "duration": 139.22432432432433,
            "price": 5.0654449999999995,
            "currency": "EUR",
            "distance": 0,
            "detour": 128.86033715132916,
            "charge_point": {
              "plug": "type2",
              "power": 22
            }
          },
          "relationships": {
            "charging_station": {
              "data": {
                "type": "charging_station",
                "id": "c21ed99d-643d-5397-8b29-b5aa81ea62cf"
              }
            }
          }
        }
      ],
      "included": [
        {
          "id": "cd49bc8b-98cf-5606-ba3b-33a6ae6cfe86",
          "type": "charging_station",
          "attributes": {
            "name": "Paris | SAGS Parking Lobau",
            "latitude": 48.856796,
            "longitude": 2.35387,
            "country": "FR",
            "address": "4 Rue de Lobau 75004 Paris",
            "free_parking": null,
            "free_charging": false,
            "evse_operator": "FR*V75",
            "evse_ids": [],
            "charge_points": [
              {
                "plug": "ccs",
                "energy_type": "dc",
                "power": 50,
                "count": 7,
                "evse_ids": [],
                "available_count": null
              },
              {
                "plug": "chademo",
                "energy_type": "dc",
                "power": 50,
                "count": 7,
                "evse_ids": [],
                "available_count": null
              }
            ],
            "facilities": [],
            "parking_type": "parking_lot",
            "created_at": 1670198400000,
            "updated_at": 1670198400000,
            "version": 1,
            "source_label": "irve"
          },
          "relationships": {
            "operator": {
              "data": {
                "type": "company",
                "id": "ac96f6c4-8933-5e71-b606-46d3d63b8777"
              }
            }
          },
          "meta": {
            "branding": null
          }
        },
        {
          "id": "c21ed99d-643d-5397-8b29-b5aa81ea62cf",
          "type": "charging_station",
          "attributes": {
            "name": "Paris | Place Saint-Gervais 4",
            "latitude": 48.856052,
            "longitude": 2.353752,
            "country": "FR",
            "address": "4 Place Saint-Gervais 75004 Paris",
            "free_parking": null,
            "free_charging": false,
            "evse_operator": "FR*V75",
            "evse_ids": [],
            "charge_points": [
              {
                "plug": "ccs",
                "energy_type": "dc",
                "power": 50,
                "count": 2,
                "evse_ids": [],
                "available_count": null
              },
              {
                "plug": "chademo",
                "energy_type": "dc",
                "power": 50,
                "count": 2,
                "evse_ids": [],
                "available_count": null
              }
            ],
            "facilities": [],
            "parking_type": "on_street",
            "created_at": 1670198400000,
            "updated_at": 1670198400000,
            "version": 1,
            "source_label": "irve"
          },
          "relationships": {
            "operator": {
              "data": {
                "type": "company",
                "id": "ac96f6c4-8933-5e71-b606-46d3d63b8777"
              }
            }
          },
          "meta": {
            "branding": null
          }
        }
      ],
      "meta": {
        "stations_considered": 74,
        "stations_priced": 73,
        "more_available": true
      }
    }
  },
  "POST /v1/ocpi/cdr_cost": {
    "status": 200,
    "body": {
      "data": {
        "id": "441e5626553521143156bcbc1c9d9395",
        "type": "cdr_cost",
        "attributes": {
          "currency": "EUR",
          "timezone": "Europe/Amsterdam",
          "total_cost": {
            "excl_vat": 7,
            "incl_vat": 7.9
          },
          "total_energy_cost": {
            "excl_vat": 5,
            "incl_vat": 5.5
          },
          "total_time_cost": {
            "excl_vat": 0,
            "incl_vat": 0
          },
          "total_parking_time_cost": {
            "excl_vat": 1.5,
            "incl_vat": 1.8
          },
          "total_fixed_cost": {
            "excl_vat": 0.5,
            "incl_vat": 0.6
          },
          "total_reservation_cost": {
            "excl_vat": 0,
            "incl_vat": 0
          },
          "total_energy": 20,
          "total_time": 0,
          "total_parking_time": 0.75,
          "total_reservation_time": 0,
          "price_bound": null,
          "charging_periods": [
            {
              "start_date_time": "2026-03-02T17:00:00Z",
              "tariff_elements": {
                "ENERGY": 1
              }
            },
            {
              "start_date_time": "2026-03-02T19:00:00Z",
              "tariff_elements": {
                "PARKING_TIME": 2
              }
            }
          ]
        }
      }
    }
  },
  "POST /v1/tariff_details": {
    "status": 200,
    "body": {
      "data": [
        {
          "id": "54777d58-c773-50fd-b5ac-bdc4c812f904",
          "type": "station_tariff_details",
          "attributes": {
            "country": "FR",
            "updated_at": 1795944191144,
            "is_roaming": true,
            "tariff_level": "country",
            "restricted_segments": [
              {
                "dimension": "kwh",
                "price": 0.59,
                "range_gte": null,
                "range_lt": null,
                "billing_increment": null,
                "currency": "EUR",
                "time_of_day_start": null,
                "time_of_day_end": null,
                "charge_point_powers": [],
                "charge_point_energy_type": "ac",
                "car_ac_phase": null,
                "charge_point_power_is_range": false,
                "use_consumed_charging_power": false,
                "is_average_price": false,
                "occupancy_gte": null,
                "occupancy_lt": null
              },
              {
                "dimension": "kwh",
                "price": 0.61,
                "range_gte": null,
                "range_lt": null,
                "billing_increment": null,
                "currency": "EUR",
                "time_of_day_start": null,
                "time_of_day_end": null,
                "charge_point_powers": [],
                "charge_point_energy_type": "dc",
                "car_ac_phase": null,
                "charge_point_power_is_range": false,
                "use_consumed_charging_power": false,
                "is_average_price": false,
                "occupancy_gte": null,
                "occupancy_lt": null
              }
            ],
            "no_price_reason": null,
            "prices_per_station_available": false
          },
          "relationships": {
            "emp": {
              "data": {
                "type": "company",
                "id": "5bb4ebcc-4dc7-5caa-b5b6-46accf7b9554"
              }
            },
            "tariff": {
              "data": {
                "type": "tariff",
                "id": "18663f49-0af6-550d-9681-4af1727bdf22"
              }
            },
            "cpo": {
              "data": {
                "type": "company",
                "id": "ac96f6c4-8933-5e71-b606-46d3d63b8777"
              }
            },
            "station": {
              "data": {
                "type": "charging_station",
                "id": "006552ff-0c7f-5334-896a-eb1f5346b444"
              }
            }
          }
        },
        {
          "id": "123bb7a5-a31a-570b-a28d-3eb223dc0b26",
          "type": "station_tariff_details",
          "attributes": {
            "country": "FR",
            "updated_at": 1795944191144,
            "is_roaming": true,
            "tariff_level": "country",
            "restricted_segments": [
              {
                "dimension": "minute",
                "price": 0.03,
                "range_gte": null,
                "range_lt": null,
                "billing_increment": 1,
                "currency": "EUR",
                "time_of_day_start": null,
                "time_of_day_end": null,
                "charge_point_powers": [],
                "charge_point_energy_type": "ac",
                "car_ac_phase": null,
                "charge_point_power_is_range": false,
                "use_consumed_charging_power": false,
                "is_average_price": false,
                "occupancy_gte": null,
                "occupancy_lt": null
              },
              {
                "dimension": "minute",
                "price": 0.1,
                "range_gte": 240,
                "range_lt": null,
                "billing_increment": 1,
                "currency": "EUR",
                "time_of_day_start": null,
                "time_of_day_end": null,
                "charge_point_powers": [],
                "charge_point_energy_type": "ac",
                "car_ac_phase": null,
                "charge_point_power_is_range": false,
                "use_consumed_charging_power": false,
                "is_average_price": false,
                "occupancy_gte": null,
                "occupancy_lt": null
              }
            ],
            "no_price_reason": null,
            "prices_per_station_available": false
          },
          "relationships": {
            "emp": {
              "data": {
                "type": "company",
                "id": "8ec48995-ee9b-5b49-802e-06607d715a18"
              }
            },
            "tariff": {
              "data": {
                "type": "tariff",
                "id": "1e0c79d9-950b-57d5-beb7-374935915f49"
              }
            },
            "cpo": {
              "data": {
                "type": "company",
                "id": "ac96f6c4-8933-5e71-b606-46d3d63b8777"
              }
            },
            "station": {
              "data": {
                "type": "charging_station",
                "id": "006552ff-0c7f-5334-896a-eb1f5346b444"
              }
            }
          }
        }
      ],
      "included": [
        {
          "id": "5bb4ebcc-4dc7-5caa-b5b6-46accf7b9554",
          "type": "company",
          "attributes": {
            "name": "Currago Roam (synthetic)"
          }
        },
        {
          "id": "18663f49-0af6-550d-9681-4af1727bdf22",
          "type": "tariff",
          "attributes": {
            "name": "Currago Roam Flex",
            "total_monthly_fee": 0,
            "is_direct_payment": false,
            "is_card_payment": false,
            "is_secondary_tariff": false,
            "provider_customer_only": false,
            "existing_customer_only": false,
            "allowed_customer_countries": [],
            "currency": "EUR",
            "url": "https://currago-roam.example/tariffs/flex"
          },
          "relationships": {
            "vehicle_brands": {
              "data": []
            }
          }
        }
      ]
    }
  },
  "GET /v1/tariffs": {
    "status": 200,
    "body": {
      "data": [
        {
          "id": "18663f49-0af6-550d-9681-4af1727bdf22",
          "type": "tariff",
          "attributes": {
            "provider": "Currago Roam (synthetic)",
            "name": "Currago Roam Flex",
            "total_monthly_fee": 0,
            "currency": "EUR",
            "is_direct_payment": false,
            "is_vehicle_brand_restricted": false,
            "is_card_payment": false,
            "existing_customer_only": false,
            "is_secondary_tariff": false,
            "provider_customer_only": false,
            "integration_status": "complete",
            "branding": null,
            "supported_countries": [],
            "charge_card_id": "0"
          },
          "relationships": {
            "emp": {
              "data": {
                "type": "company",
                "id": "5bb4ebcc-4dc7-5caa-b5b6-46accf7b9554"
              }
            },
            "vehicle_brands": {
              "data": []
            }
          }
        }
      ]
    }
  },
  "GET /v2/tariffs": {
    "status": 200,
    "body": {
      "data": [
        {
          "id": "18663f49-0af6-550d-9681-4af1727bdf22",
          "type": "tariff",
          "attributes": {
            "name": "Currago Roam Flex",
            "created_at": 1795944191144,
            "updated_at": 1795944191144,
            "version": 1,
            "monthly_min_sales": 0,
            "monthly_fee": 0,
            "yearly_service_fee": 0,
            "is_flat_rate": false,
            "is_direct_payment": false,
            "provider_customer_only": false,
            "currency": "EUR",
            "notes": "SYNTHETIC: generated demo tariff (src/import/default-catalog.ts), not a real offer.",
            "url": "https://currago-roam.example/tariffs/flex",
            "no_price_policy": "inherit",
            "no_price_reason": "inherit",
            "apply_prices_to_sub_tariff": null,
            "supported_countries": [],
            "tags": [],
            "prices": [
              {
                "restrictions": [
                  {
                    "allowance": "allow",
                    "charge_point_powers": [],
                    "charge_point_energy_type": "ac",
                    "cpo_ids": [],
                    "countries": [],
                    "car_ac_phase": null,
                    "charge_point_power_is_range": false,
                    "use_consumed_charging_power": false
                  }
                ],
                "decomposition": [
                  {
                    "dimension": "kwh",
                    "price": 0.59,
                    "range_gte": null,
                    "range_lt": null,
                    "billing_increment": null,
                    "currency": null,
                    "time_of_day_start": null,
                    "time_of_day_end": null,
                    "is_average_price": false,
                    "occupancy_gte": null,
                    "occupancy_lt": null
                  }
                ]
              },
              {
                "restrictions": [
                  {
                    "allowance": "allow",
                    "charge_point_powers": [],
                    "charge_point_energy_type": "dc",
                    "cpo_ids": [],
                    "countries": [],
                    "car_ac_phase": null,
                    "charge_point_power_is_range": false,
                    "use_consumed_charging_power": false
                  }
                ],
                "decomposition": [
                  {
                    "dimension": "kwh",
                    "price": 0.61,
                    "range_gte": null,
                    "range_lt": null,
                    "billing_increment": null,
                    "currency": null,
                    "time_of_day_start": null,
                    "time_of_day_end": null,
                    "is_average_price": false,
                    "occupancy_gte": null,
                    "occupancy_lt": null
                  },
                  {
                    "dimension": "minute",
                    "price": 0.24,
                    "range_gte": 60,
                    "range_lt": null,
                    "billing_increment": 1,
                    "currency": null,
                    "time_of_day_start": null,
                    "time_of_day_end": null,
                    "is_average_price": false,
                    "occupancy_gte": null,
                    "occupancy_lt": null
                  }
                ]
              }
            ],
            "is_card_payment": false,
            "is_secondary_tariff": false,
            "existing_customer_only": false,
            "integration_status": "complete",
            "system_tags": [],
            "branding": null,
            "charge_card_id": null
          },
          "relationships": {
            "vehicle_brands": {
              "data": []
            },
            "super_tariffs": {
              "data": []
            },
            "emp": {
              "data": {
                "type": "company",
                "id": "5bb4ebcc-4dc7-5caa-b5b6-46accf7b9554"
              }
            },
            "cpo": {
              "data": null
            }
          }
        }
      ],
      "meta": {
        "overall_count": 1
      },
      "links": {
        "self": "/v2/tariffs?filter[emp.id]=5bb4ebcc-4dc7-5caa-b5b6-46accf7b9554&page[size]=1&page[number]=1",
        "first": "/v2/tariffs?filter[emp.id]=5bb4ebcc-4dc7-5caa-b5b6-46accf7b9554&page[size]=1&page[number]=1",
        "last": "/v2/tariffs?filter[emp.id]=5bb4ebcc-4dc7-5caa-b5b6-46accf7b9554&page[size]=1&page[number]=1"
      }
    }
  },
  "GET /v1/companies": {
    "status": 200,
    "body": {
      "data": [
        {
          "id": "ac96f6c4-8933-5e71-b606-46d3d63b8777",
          "type": "company",
          "attributes": {
            "name": "TOTALENERGIES",
            "created_at": 1795944191098,
            "updated_at": 1795944191098,
            "version": 1,
            "url": null,
            "is_cpo": true,
            "is_emp": false,
            "external_source_mapping": {
              "ext_a_ids": null,
              "ext_b_names": null,
              "ext_b_charge_card_ids": null,
              "sheet_names": null,
              "ext_c_operator_ids": null,
              "evse_operator_ids": [
                "FR*V75"
              ]
            }
          },
          "relationships": {
            "supported_emps": {
              "data": [
                {
                  "type": "company",
                  "id": "03115e6f-4db0-5da3-8f23-09487f743f39"
                },
                {
                  "type": "company",
                  "id": "07071647-5ade-549d-960e-fd6d64c9566c"
                }
              ]
            },
            "cpo_group": {
              "data": null
            },
            "emp_group": {
              "data": null
            }
          }
        }
      ],
      "meta": {
        "overall_count": 1
      },
      "links": {
        "self": "/v1/companies?filter[id]=ac96f6c4-8933-5e71-b606-46d3d63b8777&page[number]=1",
        "first": "/v1/companies?filter[id]=ac96f6c4-8933-5e71-b606-46d3d63b8777&page[number]=1",
        "last": "/v1/companies?filter[id]=ac96f6c4-8933-5e71-b606-46d3d63b8777&page[number]=1"
      }
    }
  },
  "GET /v1/vehicles": {
    "status": 200,
    "body": {
      "data": [
        {
          "id": "01936832-c987-da0e-cbb3-9f6793becdfe",
          "type": "car",
          "attributes": {
            "name": "530e xDrive Touring (2020)",
            "brand": "BMW",
            "dc_charge_ports": [],
            "usable_battery_size": 11.15,
            "ac_max_power": 3.7,
            "dc_max_power": null
          },
          "relationships": {
            "manufacturer": {
              "data": {
                "type": "brand",
                "id": "0742668c-bf59-4191-890e-2b0883508808"
              }
            }
          }
        },
        {
          "id": "01de7c99-366b-4084-909d-5723aad78668",
          "type": "car",
          "attributes": {
            "name": "Model S P90D (2015)",
            "brand": "Tesla",
            "dc_charge_ports": [
              "ccs",
              "chademo"
            ],
            "usable_battery_size": 82,
            "ac_max_power": 16.5,
            "dc_max_power": 197
          },
          "relationships": {
            "manufacturer": {
              "data": {
                "type": "brand",
                "id": "f37896c3-6bc5-45e1-b442-b9cbc38e3a7c"
              }
            }
          }
        }
      ]
    }
  },
  "GET /v2/vehicle_brands": {
    "status": 200,
    "body": {
      "data": [
        {
          "id": "a43d2607-eead-46c2-9fd5-2ebd3c49d895",
          "type": "vehicle_brand",
          "attributes": {
            "name": "Aiways"
          }
        },
        {
          "id": "97d0d03a-63c6-4f33-99d7-6e944f71d7c5",
          "type": "vehicle_brand",
          "attributes": {
            "name": "Artega"
          }
        }
      ],
      "meta": {
        "overall_count": 38
      }
    }
  },
  "GET /v2/vehicles": {
    "status": 200,
    "body": {
      "data": [
        {
          "id": "1914d6e6-7d1b-c453-53ac-69a302a6a339",
          "type": "car",
          "attributes": {
            "ev_type": "phev",
            "model": "530e",
            "release_year": 2020,
            "variant": "Berline",
            "usable_battery_size": 11.15,
            "ac_phases": 1,
            "ac_ports": [
              "type2"
            ],
            "ac_max_power": 3.7,
            "ac_power_per_charging_point": {
              "2.0": 2,
              "2.3": 2.3,
              "3.7": 3.7,
              "7.4": 3.7,
              "11.0": 3.7,
              "16.0": 3.7,
              "22.0": 3.7,
              "43.0": 3.7
            },
            "dc_ports": [],
            "dc_max_power": null,
            "dc_charging_curve": [],
            "dc_default_charging_curve": false,
            "energy_consumption": {
              "average_consumption": 16.3
            },
            "dc_charge_ports": []
          },
          "relationships": {
            "manufacturer": {
              "data": {
                "type": "vehicle_brand",
                "id": "0742668c-bf59-4191-890e-2b0883508808"
              }
            }
          }
        },
        {
          "id": "9587d885-c16c-7465-9a18-59b5d50fd046",
          "type": "car",
          "attributes": {
            "ev_type": "phev",
            "model": "530e",
            "release_year": 2020,
            "variant": "Touring",
            "usable_battery_size": 11.15,
            "ac_phases": 1,
            "ac_ports": [
              "type2"
            ],
            "ac_max_power": 3.7,
            "ac_power_per_charging_point": {
              "2.0": 2,
              "2.3": 2.3,
              "3.7": 3.7,
              "7.4": 3.7,
              "11.0": 3.7,
              "16.0": 3.7,
              "22.0": 3.7,
              "43.0": 3.7
            },
            "dc_ports": [],
            "dc_max_power": null,
            "dc_charging_curve": [],
            "dc_default_charging_curve": false,
            "energy_consumption": {
              "average_consumption": 17
            },
            "dc_charge_ports": []
          },
          "relationships": {
            "manufacturer": {
              "data": {
                "type": "vehicle_brand",
                "id": "0742668c-bf59-4191-890e-2b0883508808"
              }
            }
          }
        }
      ],
      "included": [
        {
          "id": "0742668c-bf59-4191-890e-2b0883508808",
          "type": "vehicle_brand",
          "attributes": {
            "name": "BMW"
          }
        },
        {
          "id": "3291e5ba-862c-49fa-8437-71105743875e",
          "type": "vehicle_brand",
          "attributes": {
            "name": "Fiat"
          }
        }
      ],
      "meta": {
        "overall_count": 11
      },
      "links": {
        "self": "/v2/vehicles?q=530e&page[number]=1",
        "first": "/v2/vehicles?q=530e&page[number]=1",
        "last": "/v2/vehicles?q=530e&page[number]=1"
      }
    }
  },
  "POST /v1/crm/devices": {
    "status": 200,
    "body": {
      "data": {
        "id": "3f2b8c1e-6d4a-4e5f-9a7b-1c2d3e4f5a6b",
        "type": "crm_device"
      }
    }
  },
  "POST /v1/availability": {
    "status": 200,
    "body": {
      "meta": {
        "received": 1,
        "applied": 1,
        "stale": 0,
        "unknown": 0,
        "unknown_evse_ids": []
      }
    }
  },
  "PUT /ocpi/2.2.1/locations/:country_code/:party_id/:location_id/:evse_uid": {
    "status": 200,
    "body": {
      "data": null,
      "status_code": 1000,
      "status_message": "Success",
      "timestamp": "2026-11-29T09:23:16.144Z"
    }
  },
  "PATCH /ocpi/2.2.1/locations/:country_code/:party_id/:location_id/:evse_uid": {
    "status": 200,
    "body": {
      "data": null,
      "status_code": 1000,
      "status_message": "Success",
      "timestamp": "2026-11-29T09:23:16.145Z"
    }
  },
  "GET /account/reset.js": {
    "status": 200,
    "body": "'use strict';\n(function () {\n  var form = document.getElementById('reset');\n  var msg = document.getElementById('msg');\n  form.addEventListener('submit', function (ev) {\n    ev.preventDefault();\n    var pw = document.getElementById('password').value;\n    if (pw !== document.getElementById('again').value) { msg.textContent = 'The two passwords differ.'; return; }\n    var body = { data: { type: 'password_reset', attributes: { token: form.dataset.token, password: pw } } };\n    fetch(form.dataset.action, { method: 'POST', headers: { 'Content-Type': 'application/vnd.api+json' }, body: JSON.stringif…"
  },
  "POST /v1/trip_plans": {
    "status": 200,
    "body": {
      "data": {
        "id": "8151b10e0d2b02d391d227f5c1c68e57",
        "type": "trip_plan",
        "attributes": {
          "stops": [
            {
              "station_id": "fe744711-c0cc-5105-afa2-fb1873146166",
              "charge_point": {
                "plug": "type2",
                "power": 7
              },
              "tariff_id": "18663f49-0af6-550d-9681-4af1727bdf22",
              "arrival_soc": 11.889420699663292,
              "charge_from_soc": 10,
              "departure_soc": 15,
              "energy": 4.51,
              "charging_minutes": 73.13513513513513,
              "price": 2.6609,
              "distance": 0,
              "detour": 996.4288601769316,
              "detour_minutes": 1.1957146322123178
            }
          ],
          "totals": {
            "price": 2.6609,
            "charging_minutes": 73.13513513513513,
            "detour": 996.4288601769316,
            "detour_minutes": 1.1957146322123178,
            "arrival_soc": 12.585761683796465,
            "cost": 2.6609
          },
          "currency": "EUR",
          "distance": 10379.123038520871
        },
        "relationships": {
          "charging_stations": {
            "data": [
              {
                "type": "charging_station",
                "id": "fe744711-c0cc-5105-afa2-fb1873146166"
              }
            ]
          }
        }
      },
      "included": [
        {
          "id": "fe744711-c0cc-5105-afa2-fb1873146166",
          "type": "charging_station",
          "attributes": {
            "name": "Paris | Rue de la Fédération 10",
            "latitude": 48.85482,
            "longitude": 2.290405,
            "country": "FR",
            "address": "10 Rue de la Fédération 75015 Paris",
            "free_parking": null,
            "free_charging": false,
            "evse_operator": "FR*V75",
            "evse_ids": [],
            "charge_points": [
              {
                "plug": "type2",
                "energy_type": "ac",
                "power": 7,
                "count": 6,
                "evse_ids": [],
                "available_count": null
              },
              {
                "plug": "schuko",
                "energy_type": "ac",
                "power": 3.7,
                "count": 6,
                "evse_ids": [],
                "available_count": null
              }
            ],
            "facilities": [],
            "parking_type": "on_street",
            "created_at": 1670198400000,
            "updated_at": 1670198400000,
            "version": 1,
            "source_label": "irve"
          },
          "relationships": {
            "operator": {
              "data": {
                "type": "company",
                "id": "ac96f6c4-8933-5e71-b606-46d3d63b8777"
              }
            }
          },
          "meta": {
            "branding": null
          }
        },
        {
          "id": "ac96f6c4-8933-5e71-b606-46d3d63b8777",
          "type": "company",
          "attributes": {
            "name": "TOTALENERGIES"
          }
        }
      ],
      "meta": {
        "model": {
          "vehicle": "01de7c99-366b-4084-909d-5723aad78668",
          "usable_battery": 82,
          "consumption": 18.2,
          "start_soc": 12,
          "min_soc": 10,
          "max_soc": 80,
          "soc_step": 5,
          "time_value": 0,
          "detour_speed": 50,
          "corridor": 2000,
          "currency": "EUR",
          "start_time": 720
        },
        "stations_considered": 353,
        "stations_priced": 347
      }
    }
  },
  "POST /admin/snapshot": {
    "status": 200,
    "body": {
      "data": {
        "type": "snapshots",
        "id": "c56205466c0f666f",
        "attributes": {
          "version": "c56205466c0f666f",
          "built_at": "2022-12-05T00:00:00.000Z",
          "file": "/tmp/cps-openapi-3JHk5H/sample.sqlite",
          "stations": 1933,
          "generation": 1,
          "load_ms": 31,
          "swap_ms": 146.83
        }
      }
    }
  }
};
