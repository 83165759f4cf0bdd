import { execFileSync } from 'node:child_process';

/** Tests that run the real hub process use the compiled CLI: build once before the suite. */
export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
