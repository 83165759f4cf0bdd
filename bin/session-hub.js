#!/usr/bin/env node
// The installed command; runs the compiled CLI (npm run build makes dist/).
const [command, sub] = process.argv.slice(2);
// `hook <flavor>` runs once per agent event: straight to the bundled bridge (node built-ins only),
// without loading the CLI
const hookCall = command === 'hook' && sub !== undefined && !sub.startsWith('-') && sub !== 'install' && sub !== 'status';
const load = hookCall
  ? // require, not import(): the bundle is CommonJS, and import() would translate it through the ESM loader
    import('node:module').then(({ createRequire }) => createRequire(import.meta.url)('../dist/hook-bridge.cjs').runBridgeCli(process.argv.slice(3)))
  : import('../dist/hub/cli.js');
load.catch((error) => {
  if (error && (error.code === 'ERR_MODULE_NOT_FOUND' || error.code === 'MODULE_NOT_FOUND')) {
    process.stderr.write('session-hub: not built yet; run "npm run build" (npm start builds for you)\n');
    process.exit(1);
  }
  throw error;
});
