import { execFileSync } from 'node:child_process';

/** Tests that run the real hub process use the compiled CLI (and the bundled hook bridge): build once before the suite. */
export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['scripts/bundle-hook-bridge.mjs'], { stdio: 'inherit' });
}
