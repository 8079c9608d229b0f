/**
 * The ceiling for HTTP benchmarks: a bare uWebSockets.js app that answers fixed, pre-serialized
 * responses (the bytes the full stack returned for the same request), with no routing, auth,
 * parsing or logging. Run as a child process by bench/http.ts:
 *
 *   node dist/src/http/bare-app.js <responses.json>
 *
 * responses.json: [{ method, path, status, body }]; the bound port is printed as `listening <port>`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import './uws-env.js';
import uWS from 'uWebSockets.js';

export interface FixedResponse {
  method: string;
  path: string;
  status: number;
  /** The body as text, or base64 of binary bytes (`base64`). */
  body: string;
  base64?: boolean;
  contentType?: string;
}

const REASON: Record<number, string> = { 200: 'OK', 201: 'Created', 204: 'No Content', 304: 'Not Modified' };

export function startBareApp(responses: readonly FixedResponse[], port = 0): Promise<BenchApp> {
  const app = uWS.App();
  for (const r of responses) {
    const status = `${r.status} ${REASON[r.status] ?? ''}`.trimEnd();
    const body = Buffer.from(r.body, r.base64 === true ? 'base64' : 'utf8');
    const type = r.contentType ?? 'application/json; charset=utf-8';
    const handler = (res: uWS.HttpResponse): void => {
      let aborted = false;
      res.onAborted(() => (aborted = true));
      const reply = (): void => {
        if (aborted) return;
        res.cork(() => {
          if (r.status === 204) res.writeStatus(status).endWithoutBody();
          else res.writeStatus(status).writeHeader('Content-Type', type).end(body);
        });
      };
      if (r.method === 'GET') reply();
      else res.onData((_c, last) => last && reply());
    };
    const m = r.method.toLowerCase();
    if (m === 'get') app.get(r.path, handler);
    else if (m === 'post') app.post(r.path, handler);
    else if (m === 'put') app.put(r.path, handler);
    else app.any(r.path, handler);
  }
  return listenLoopback(app, port, 'bare app');
}

/** A benchmark's own uWS app, listening. */
export interface BenchApp {
  port: number;
  close(): void;
}

/** Listens on 127.0.0.1 (port 0: any free one): the bound port and a close. */
export function listenLoopback(app: uWS.TemplatedApp, port: number, name: string): Promise<BenchApp> {
  return new Promise((resolve, reject) => {
    app.listen('127.0.0.1', port, (token) => {
      if (!token) return reject(new Error(`${name} cannot listen`));
      resolve({
        port: uWS.us_socket_local_port(token),
        close: () => {
          uWS.us_listen_socket_close(token);
          app.close();
        },
      });
    });
  });
}

/**
 * Runs a benchmark app as a child process when `moduleUrl` is the entry: starts it with the
 * JSON file named by the first argument, prints `listening <port>`, closes on SIGTERM.
 */
export function runAsChild<S>(moduleUrl: string, start: (spec: S) => Promise<BenchApp>): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(path.resolve(process.argv[1])).href) return;
  const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) as S;
  void start(spec).then((a) => {
    process.stdout.write(`listening ${a.port}\n`);
    process.on('SIGTERM', () => {
      a.close();
      process.exit(0);
    });
  });
}

runAsChild<FixedResponse[]>(import.meta.url, (responses) => startBareApp(responses));
