import { startService, type Service } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './log.js';
import { SnapshotFormatError } from './storage/snapshot.js';
import { PortInUseError } from './http/server.js';
import { DataDirError, StorageUnavailableError } from './storage/live.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`configuration error: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const logger = createLogger(config.logLevel);
  // Handlers first. A signal that arrives while the service is still starting ends the process at
  // once (exit 0): nothing has been served yet, and every write made so far (seeding) is committed
  // or rolled back by SQLite, so there is nothing to drain (D102).
  let service: Service | null = null;
  let signalled: NodeJS.Signals | null = null;
  const shutdown = (svc: Service, signal: NodeJS.Signals): void => {
    logger.info({ signal, inFlight: svc.pipeline.inFlight() }, 'shutting down');
    svc.stop().then(
      () => {
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
    if (e instanceof SnapshotFormatError) {
      process.stderr.write(`cannot start: ${e.message}\n`);
      logger.flush();
      process.exit(3);
    }
    if (e instanceof DataDirError) {
      process.stderr.write(`cannot start: ${e.message}\n`);
      logger.flush();
      process.exit(2);
    }
    if (e instanceof StorageUnavailableError) {
      // D152: a configured database that cannot be reached at start stops the start (the
      // service never runs without its live store); a balancer keeps it out meanwhile.
      process.stderr.write(`cannot start: the live store cannot be reached (${e.message})\n`);
      logger.error({ code: e.code, reason: e.message }, 'live store unreachable');
      logger.flush();
      process.exit(1);
    }
    if (e instanceof PortInUseError) {
      process.stderr.write(`cannot start: ${e.message}\n`);
      logger.error({ host: e.host, port: e.port }, 'port in use');
      logger.flush();
      process.exit(1);
    }
    throw e;
  }
  if (signalled) shutdown(service, signalled);
}

main().catch((e: unknown) => {
  process.stderr.write(`fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
