/**
 * The Node.js releases the hub refuses to run its store on. From 24.19.0, `node::ObjectWrap`'s
 * inline destructor asserts an entered JS context; better-sqlite3 12, compiled against those
 * headers, aborts the process (SIGABRT) when V8 collects a statement outside one (an idle-time GC).
 * Measured: 24.21.0 aborts; 24.22.1 and 24.22.3 pass (docs/node-versions.md). The same range is in
 * package.json `engines` and the README.
 */
const BROKEN = { major: 24, fromMinor: 19, beforeMinor: 22 };

/** One line naming the fix when `version` (e.g. "v24.20.0") is a release the store can abort on; undefined otherwise. */
export function unsupportedNode(version: string): string | undefined {
  const match = /^v?(\d+)\.(\d+)\.\d+/.exec(version);
  if (!match) return undefined;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  if (major !== BROKEN.major || minor < BROKEN.fromMinor || minor >= BROKEN.beforeMinor) return undefined;
  return `Node.js ${version} is not supported: on 24.19 to 24.21 the SQLite driver (better-sqlite3 12) can abort the hub. Install Node 24.22 or newer (or 22 LTS), then run "npm ci" again so it is rebuilt for that Node.`;
}
