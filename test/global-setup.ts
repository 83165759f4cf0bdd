import { execFileSync } from 'node:child_process';

/**
 * Tests that run the real hub process use the compiled CLI (and the bundled hook bridge): build once
 * before the suite, as `npm run build` does (so a later `npm start` finds dist current).
 */
export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}
