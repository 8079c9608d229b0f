import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** HTTP tests run the compiled server as a child process: build it once per test run. */
export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync(process.execPath, [root + 'node_modules/typescript/bin/tsc', '-p', root + 'tsconfig.json'], {
    stdio: 'inherit',
    cwd: root,
  });
}
