/**
 * `npm run ocpi:cost -- --tariff t.json --cdr c.json [--timezone Europe/Amsterdam]`: prints the
 * `cdr_cost` document of `POST /v1/ocpi/cdr_cost` (D140–D146) for an OCPI Tariff and a CDR (or a
 * session with start_date_time, end_date_time and charging_periods) read from files. Bad input:
 * the JSON:API errors on stderr, exit code 1; usage errors exit 2.
 */
import fs from 'node:fs';
import { cdrCostDocument } from '../api/cdr-cost/cdr-cost.js';
import { ApiError } from '../api/jsonapi/errors.js';
import { fail, parseCli } from './common.js';

const USAGE = 'usage: npm run ocpi:cost -- --tariff <tariff.json> --cdr <cdr.json> [--timezone <IANA zone, default UTC>]';
const { values } = parseCli(process.argv.slice(2), { tariff: { type: 'string' }, cdr: { type: 'string' }, timezone: { type: 'string' } }, USAGE);
if (values.tariff === undefined || values.cdr === undefined) fail(USAGE);

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    process.stderr.write(`${file}: ${(e as Error).message}\n`);
    process.exit(1);
  }
}

const body = {
  data: {
    type: 'ocpi_cdr_cost_request',
    attributes: { tariff: readJson(values.tariff), cdr: readJson(values.cdr), ...(values.timezone !== undefined ? { timezone: values.timezone } : {}) },
  },
};
try {
  process.stdout.write(`${JSON.stringify(cdrCostDocument(body), null, 2)}\n`);
} catch (e) {
  if (!(e instanceof ApiError)) throw e;
  process.stderr.write(`${JSON.stringify({ errors: e.errors }, null, 2)}\n`);
  process.exit(1);
}
