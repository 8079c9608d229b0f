import { startService, type Service } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { SigningKeyError } from './auth/token.js';
import type { Logger } from 'pino';
import { createLogger, flushAccessLines } from './log.js';
import { SnapshotFormatError } from './storage/snapshot.js';
import { PortInUseError } from './http/server.js';
import { DataDirError, StorageUnavailableError } from './storage/live.js';

/** The logger once there is one (fatal errors before it use one of level info). */
let log: Logger | null = null;

/**
 * Ends a start that cannot go on (D126): one JSON line on stdout (level fatal, `exitCode`, the
 * reason's fields) and one line for a person on stderr, never a multi-line stack; then exits.
 */
function fatal(exitCode: number, human: string, fields: Record<string, unknown>, msg: string): void {
  const logger = (log ??= createLogger('info'));
  // Also the code if the process ends for lack of anything to do before the flush calls back.
  process.exitCode = exitCode;
  logger.fatal({ exitCode, ...fields }, msg);
  process.stderr.write(`${human}\n`);
  logger.flush(() => process.exit(exitCode));
  // A flush that never calls back must not keep a failed start alive.
  setTimeout(() => process.exit(exitCode), 1000).unref();
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) return fatal(2, `configuration error: ${e.message}`, { reason: e.message }, 'configuration error');
    throw e;
  }
  const logger = (log = createLogger(config.logLevel));
  // Handlers first. A signal that arrives while the service is still starting ends the process at
  // once (exit 0): nothing has been served yet, and every write made so far (seeding) is committed
  // or rolled back by SQLite, so there is nothing to drain (D102).
  let service: Service | null = null;
  let signalled: NodeJS.Signals | null = null;
  const shutdown = (svc: Service, signal: NodeJS.Signals): void => {
    logger.info({ signal, inFlight: svc.pipeline.inFlight() }, 'shutting down');
    svc.stop().then(
      () => {
        flushAccessLines();
        logger.info('stopped');
        logger.flush(() => process.exit(0));
      },
      (e: unknown) => {
        logger.error({ err: e }, 'shutdown failed');
        logger.flush(() => process.exit(1));
      },
    );
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) return;
    signalled = signal;
    if (service) shutdown(service, signal);
    else {
      logger.info({ signal }, 'stopped during start-up');
      logger.flush(() => process.exit(0));
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // SIGHUP: swap in the snapshot at SNAPSHOT (D133); a refused file is logged and changes nothing.
  process.on('SIGHUP', () => {
    if (!service || signalled) return;
    service.reloadSnapshot().catch((e: unknown) => logger.warn({ err: e instanceof Error ? e.message : String(e) }, 'SIGHUP: no snapshot swap'));
  });
  try {
    service = await startService(config, logger);
  } catch (e) {
    return startFailed(e);
  }
  if (signalled) shutdown(service, signalled);
}

/** The exit code, message and log fields of an error that stopped the start (README "Exit codes"). */
function startFailed(e: unknown): void {
  if (e instanceof SnapshotFormatError) return fatal(3, `cannot start: ${e.message}`, { reason: e.message }, 'snapshot of another format');
  if (e instanceof DataDirError) return fatal(2, `cannot start: ${e.message}`, { reason: e.message }, 'unusable data directory');
  if (e instanceof SigningKeyError) return fatal(2, `configuration error: ${e.message}`, { reason: e.message }, 'configuration error');
  // D152: a configured database that cannot be reached at start stops the start (the service never
  // runs without its live store); a balancer keeps it out meanwhile, a supervisor retries.
  if (e instanceof StorageUnavailableError) {
    return fatal(1, `cannot start: the live store cannot be reached (${e.message})`, { code: e.code, reason: e.message }, 'live store unreachable');
  }
  if (e instanceof PortInUseError) return fatal(1, `cannot start: ${e.message}`, { host: e.host, port: e.port }, 'port in use');
  const message = e instanceof Error ? e.message : String(e);
  // The stack goes into the JSON line's `err` (one line there), not onto the terminal.
  fatal(1, `cannot start: ${message.split('\n')[0]}`, { err: e }, 'start failed');
}

main().catch(startFailed);
