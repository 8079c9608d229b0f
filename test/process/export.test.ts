import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, call, cliEnv, freshDataDir, keyFor, startTestApp, type TestApp } from '../helpers/server.js';

const run = promisify(execFile);
const SECRET = 'export-test-secret-0123456789abcdef';
const CLI = path.join(ROOT, 'dist/src/cli/export.js');

interface Out {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the compiled export CLI against a data directory. */
async function exportCli(dataDir: string, args: string[]): Promise<Out> {
  try {
    const r = await run(process.execPath, [CLI, ...args], { cwd: ROOT, env: await cliEnv(dataDir) });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

const jsonl = (s: string): any[] => s.split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('export CLI over data collected through the HTTP API', () => {
  let srv: TestApp;
  const W = keyFor('w');
  const deviceId = randomUUID();
  let between = '';

  const userFb = (notes: string, extra: Record<string, unknown> = {}) =>
    call(srv, 'POST', '/v1/user_feedback', {
      key: W,
      body: { data: { type: 'wrong_price', attributes: { notes, email: '', context: 'c', language: 'en', tariff: 'T', cpo: 'C', displayed_price: '1', actual_price: '2', ...extra } } },
    });

  beforeAll(async () => {
    srv = await startTestApp({ keys: { w: 'WriteUserFeedback,WriteCrmDevices' }, env: { JWT_SECRET: SECRET } });
    expect((await userFb('first', { poi_link: 'https://x.example/?poi_id=st-9&poi_source=native' })).status).toBe(204);
    // rejected: must never show up in an export
    expect((await userFb('x'.repeat(1001))).status).toBe(400);
    expect((await call(srv, 'POST', '/v1/partner_feedback', { key: W, body: { data: { type: 'tariff_update', attributes: { content: 'no cpo' } } } })).status).toBe(400);
    const partner = await call(srv, 'POST', '/v1/partner_feedback', {
      key: W,
      body: { data: { type: 'tariff_update', attributes: { content: 'Prices "new", from May\nline 2', tariff: '=1+1', cpo: 'A, B', emp: 'E', language: 'de' } } },
    });
    expect(partner.status).toBe(204);
    const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('user-7').setExpirationTime('10m').sign(new TextEncoder().encode(SECRET));
    const dev = (fcm: string, auth?: string) =>
      call(srv, 'POST', '/v1/crm/devices', {
        key: W,
        headers: auth ? { Authorization: auth } : {},
        body: { data: { id: deviceId, type: 'crm_device', attributes: { fcmToken: fcm, country: 'nl', language: 'nl', app_version: '1.0.0', os_version: 'iOS 17', user_products: [], disabled_notifications: ['product_updates'] } } },
      });
    expect((await dev('tok-1')).status).toBe(200);
    expect((await dev('tok-2', `Bearer ${jwt}`)).status).toBe(200);
    await sleep(30);
    between = new Date().toISOString();
    await sleep(30);
    expect((await userFb('second')).status).toBe(204);
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('when `npm run export -- feedback` runs, then JSON Lines of every accepted user feedback, oldest first', async () => {
    const r = await run('npm', ['run', '--silent', 'export', '--', 'feedback'], {
      cwd: ROOT,
      env: { ...(await cliEnv(srv.dataDir)), HOME: process.env.HOME ?? '' },
    });
    const rows = jsonl(r.stdout);
    expect(rows.map((x) => x.notes)).toEqual(['first', 'second']);
    expect(rows[0]).toEqual({
      id: 1,
      received_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      type: 'wrong_price',
      priority: 'normal',
      language: 'en',
      email: '',
      notes: 'first',
      context: 'c',
      charging_station_id: 'st-9',
      attributes: {
        notes: 'first', email: '', context: 'c', language: 'en', tariff: 'T', cpo: 'C', displayed_price: '1', actual_price: '2',
        poi_link: 'https://x.example/?poi_id=st-9&poi_source=native', priority: 'normal', user_products: [],
      },
    });
  });

  it('when --since is given, then only records at or after it', async () => {
    const r = await exportCli(srv.dataDir, ['feedback', '--since', between]);
    expect(r.code).toBe(0);
    expect(jsonl(r.stdout).map((x) => x.notes)).toEqual(['second']);
    const old = await exportCli(srv.dataDir, ['feedback', '--since', '2000-01-01']);
    expect(jsonl(old.stdout)).toHaveLength(2);
    const future = await exportCli(srv.dataDir, ['feedback', '--since', '2999-01-01T00:00:00Z']);
    expect(future).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('when partner feedback is exported as CSV, then a header row and RFC 4180 quoting, formulas neutralised', async () => {
    const r = await exportCli(srv.dataDir, ['partner-feedback', '--format', 'csv']);
    expect(r.code).toBe(0);
    const [header, ...rest] = r.stdout.split('\r\n');
    expect(header).toBe('id,received_at,type,content,tariff,cpo,emp,language');
    expect(rest.at(-1)).toBe('');
    const row = rest.slice(0, -1).join('\r\n');
    expect(row).toMatch(/^1,\d{4}-\d{2}-\d{2}T[\d:.]+Z,tariff_update,"Prices ""new"", from May\nline 2",'=1\+1,"A, B",E,de$/);
  });

  it('when partner feedback is exported as JSON Lines, then the values are exact', async () => {
    const rows = jsonl((await exportCli(srv.dataDir, ['partner-feedback'])).stdout);
    expect(rows).toEqual([
      { id: 1, received_at: expect.any(String), type: 'tariff_update', content: 'Prices "new", from May\nline 2', tariff: '=1+1', cpo: 'A, B', emp: 'E', language: 'de' },
    ]);
  });

  it('when devices are exported, then one row per device with its latest state and linked user', async () => {
    const rows = jsonl((await exportCli(srv.dataDir, ['devices'])).stdout);
    expect(rows).toEqual([
      {
        id: deviceId,
        fcm_token: 'tok-2',
        country: 'NL',
        language: 'nl',
        app_version: '1.0.0',
        os_version: 'iOS 17',
        user_products: [],
        disabled_notifications: ['product_updates'],
        user_id: 'user-7',
        created_at: expect.any(String),
        updated_at: expect.any(String),
        update_count: 1,
      },
    ]);
    const csv = (await exportCli(srv.dataDir, ['devices', '--format', 'csv'])).stdout.split('\r\n');
    expect(csv[0]).toBe('id,fcm_token,country,language,app_version,os_version,user_products,disabled_notifications,user_id,created_at,updated_at,update_count');
    expect(csv[1]).toMatch(new RegExp(`^${deviceId},tok-2,NL,nl,1\\.0\\.0,iOS 17,\\[\\],"\\[""product_updates""\\]",user-7,[^,]+,[^,]+,1$`));
    expect((await exportCli(srv.dataDir, ['devices', '--since', '2999-01-01'])).stdout).toBe('');
  });

  it('when arguments are wrong, then exit code 2 with a message on stderr and nothing on stdout', async () => {
    for (const args of [[], ['tariffs'], ['feedback', '--format', 'xml'], ['feedback', '--since', 'yesterday'], ['feedback', '--since'], ['feedback', '--limit', '3'], ['feedback', '--since', '2024-13-45']]) {
      const r = await exportCli(srv.dataDir, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.length).toBeGreaterThan(0);
    }
  });

  it('when DATA_DIR has no live store, then exit code 2', async () => {
    const r = await exportCli(freshDataDir(), ['feedback']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no live store');
  });
});
