// Bundles the hook bridge (hub/hook/bridge.ts) into dist/hook-bridge.mjs: one file that loads only
// node built-ins, so a hook call costs about one bare node start (docs/hooks.md). Run by
// `npm run build` and by the test suite's global setup.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
await build({
  absWorkingDir: root,
  entryPoints: ['hub/hook/bridge.ts'],
  outfile: 'dist/hook-bridge.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // nothing but node built-ins may be loaded: a package import fails the build instead
  external: ['node:*'],
  logLevel: 'warning',
  legalComments: 'none',
});
