// Bundles the hook bridge (hub/hook/bridge.ts) into dist/hook-bridge.cjs: one CommonJS file that
// loads only node built-ins, so a hook call costs little more than a bare node start (docs/hooks.md,
// "Wall time"). CommonJS because Node's ESM loader alone adds milliseconds to every start.
// Run by `npm run build` and by the test suite's global setup.
import { build } from 'esbuild';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
await build({
  absWorkingDir: root,
  entryPoints: ['hub/hook/bridge.ts'],
  outfile: 'dist/hook-bridge.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // nothing but node built-ins may be loaded: a package import fails the build instead
  external: ['node:*'],
  // import() of a built-in (loaded only when needed) becomes require(): import() would start the ESM loader
  supported: { 'dynamic-import': false },
  // the source is an ES module; in the bundle its own URL is the CommonJS file's
  define: { 'import.meta.url': '__bridgeFileUrl' },
  banner: { js: 'const __bridgeFileUrl = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: 'warning',
  legalComments: 'none',
});

// Hooks installed before the bridge was CommonJS run dist/hook-bridge.mjs: it stays, handing over
// to the bundle, so they keep reporting (`hook install` rewrites them to the faster command).
writeFileSync(
  `${root}/dist/hook-bridge.mjs`,
  `// Written by scripts/bundle-hook-bridge.mjs for hooks installed before dist/hook-bridge.cjs; run "session-hub hook install" again for the faster command.\n` +
    `import { createRequire } from 'node:module';\nvoid createRequire(import.meta.url)('./hook-bridge.cjs').runBridgeCli(process.argv.slice(2));\n`,
);
