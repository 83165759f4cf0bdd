// `npm run build`: tsc, then the hook bridge's bundle. With --if-stale (npm start, npm run hub, the
// benches) it builds only when a source changed since the last build: a fingerprint of the inputs
// (file count and newest mtime; a deleted or edited file changes it) is kept in dist/, and comparing
// it costs milliseconds where tsc costs seconds.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(root, 'dist/.build-inputs');
const OUTPUTS = ['dist/hub/cli.js', 'dist/hook-bridge.cjs'];

function fingerprint() {
  let files = 0;
  let newest = 0;
  const visit = (path) => {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name));
      return;
    }
    files++;
    newest = Math.max(newest, stat.mtimeMs);
  };
  for (const input of ['hub', 'shared', 'runner', 'bench', 'scripts', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json']) visit(join(root, input));
  return `${files} files, newest ${newest}\n`;
}

const inputs = fingerprint();
const current = existsSync(STAMP) && readFileSync(STAMP, 'utf8') === inputs && OUTPUTS.every((file) => existsSync(join(root, file)));
if (!(process.argv.includes('--if-stale') && current)) {
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, [join(root, 'scripts/bundle-hook-bridge.mjs')], { cwd: root, stdio: 'inherit' });
  // the inputs read before building: a file edited during the build makes the next start build again
  writeFileSync(STAMP, inputs);
}
