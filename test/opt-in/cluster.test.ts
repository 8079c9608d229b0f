/**
 * `npm run test:cluster`: replicas behind nginx (deploy/cluster.sh, deploy/nginx.conf) on loopback.
 * Two replicas on the same snapshot answer station searches with the same bytes; while station
 * reads and searches run on 16 connections, one replica is killed with SIGKILL and nginx routes
 * around it: every request still gets its 200.
 *
 * Needs Debian's nginx (.ci/run installs it with apt when missing). What the issue asks beyond
 * this (a shared PostgreSQL live store, writes read on the other replica, a database restart)
 * is not built yet.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCRIPT = path.join(ROOT, 'deploy/cluster.sh');
const KEY = 'cluster-test-key-00000001';

describe('replicas behind nginx', () => {
  let dir: string;
  let url: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-cluster-test-'));
    let out: string;
    try {
      out = execFileSync(SCRIPT, ['start', dir, '2'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CLUSTER_KEY: KEY, SNAPSHOT: inject('testSnapshot') } });
    } catch (e) {
      throw new Error(`deploy/cluster.sh start failed: ${String((e as { stderr?: string }).stderr)}`);
    }
    url = /URL=(\S+)/.exec(out)![1];
  });
  afterAll(() => {
    execFileSync(SCRIPT, ['stop', dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const get = async (p: string): Promise<{ status: number; body: string }> => {
    const r = await fetch(url + p, { headers: { 'Api-Key': KEY } });
    return { status: r.status, body: await r.text() };
  };
  const search = '/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=20000&page[size]=20';

  it('answers alike from both replicas', async () => {
    const bodies = new Set<string>();
    for (let k = 0; k < 6; k++) {
      const r = await get(search);
      expect(r.status).toBe(200);
      bodies.add(r.body);
    }
    expect(bodies.size).toBe(1);
    expect(JSON.parse([...bodies][0]).data.length).toBeGreaterThan(0);
  });

  it('routes around a replica killed with SIGKILL under load: every request answered 200', async () => {
    const id = JSON.parse((await get(search)).body).data[0].id as string;
    const statuses = new Map<number, number>();
    let stop = false;
    const worker = async (): Promise<void> => {
      for (let k = 0; !stop; k++) {
        let status: number;
        try {
          status = (await get(k % 2 === 0 ? `/v1/charging_stations/${id}` : search)).status;
        } catch {
          status = 0; // the connection failed
        }
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    const workers = Array.from({ length: 16 }, worker);
    await new Promise((r) => setTimeout(r, 1000));
    process.kill(Number(fs.readFileSync(path.join(dir, 'replica-1.pid'), 'utf8')), 'SIGKILL');
    await new Promise((r) => setTimeout(r, 2000));
    stop = true;
    await Promise.all(workers);
    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(100);
    expect(Object.fromEntries(statuses)).toEqual({ 200: total });
  });
});
