import pino from 'pino';
import { startService } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { SnapshotFormatError } from './storage/snapshot.js';

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
  const logger = pino({ level: config.logLevel, base: { pid: process.pid } }, pino.destination({ dest: 1, sync: false }));
  let service;
  try {
    service = await startService(config, logger);
  } catch (e) {
    if (e instanceof SnapshotFormatError) {
      process.stderr.write(`cannot start: ${e.message}\n`);
      logger.flush();
      process.exit(3);
    }
    throw e;
  }
  const svc = service;
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) return;
    signalled = true;
    logger.info({ signal, inFlight: svc.server.inFlight() }, 'shutting down');
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
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

main().catch((e: unknown) => {
  process.stderr.write(`fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
