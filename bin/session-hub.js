#!/usr/bin/env node
// The installed command; runs the compiled CLI (npm run build makes dist/).
import('../dist/hub/cli.js').catch((error) => {
  if (error && error.code === 'ERR_MODULE_NOT_FOUND') {
    process.stderr.write('session-hub: not built yet; run "npm run build" (npm start builds for you)\n');
    process.exit(1);
  }
  throw error;
});
