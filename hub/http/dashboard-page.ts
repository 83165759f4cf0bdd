/**
 * Serves the dashboard web page (spec section 10): `GET /` without a token, its static assets
 * under `/dashboard/<file>`, the push service worker at `/sw.js`, and the SDK's compiled browser modules under `/sdk/client/<file>`
 * (the page's live map is the SDK's `DashboardClient`, so the merge rules exist once), and the view
 * library's ES modules from node_modules under `/vendor/<file>` (Preact and htm; no build step, no
 * CDN). The page asks for a token itself and talks to the hub over `/dashboard` and the HTTP API.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { FLAVORS } from '../../shared/flavors.js';
import { sendError } from './errors.js';

export interface DashboardPageOptions {
  /** The folder holding index.html and its assets; found from the project root when omitted. */
  dir?: string;
  /** The folder holding the compiled SDK client (`dist/shared/client`); found from the project root when omitted. */
  sdkDir?: string;
}

/**
 * The SDK modules the page loads: `dashboard-client.js` and what it imports at run time (type-only
 * imports vanish in tsc's output). None imports zod or a `node:` module; `socket.io-client` is the
 * one bare specifier, mapped by the page's import map. test/browser/dashboard-page.test.ts walks the
 * compiled imports and fails if this list and the code drift apart.
 */
export const BROWSER_SDK_FILES: ReadonlySet<string> = new Set(['dashboard-client.js', 'apply-update.js', 'backoff.js', 'connection.js', 'errors.js', 'hub-link.js', 'listeners.js']);

/**
 * The view library's browser modules, by the name the page's import map gives them: a fixed list,
 * resolved through node_modules (package `exports`), so nothing else under node_modules is served.
 * `preact/hooks` imports the bare `preact`, which the same import map resolves.
 */
const VENDOR_MODULES: Readonly<Record<string, { pkg: string; file: string; commonJs?: true }>> = {
  'preact.mjs': { pkg: 'preact', file: 'dist/preact.mjs' },
  'preact-hooks.mjs': { pkg: 'preact', file: 'hooks/dist/hooks.mjs' },
  'htm.mjs': { pkg: 'htm', file: 'dist/htm.mjs' },
  // the unified-diff parser the page draws diffs with: one CommonJS file that requires nothing
  'parse-diff.mjs': { pkg: 'parse-diff', file: 'index.js', commonJs: true },
};

/** A dependency-free CommonJS file as an ES module: its `module.exports` is the default export. */
function asEsModule(source: Buffer): string {
  return `const module = { exports: {} };\nconst exports = module.exports;\n${source.toString('utf8')}\nexport default module.exports;\n`;
}

/**
 * The folder of an installed package, found from this file as Node would resolve it: its entry
 * point, then up to the package.json that names it (htm exports no `./package.json`).
 */
function packageDir(pkg: string): string {
  let dir = dirname(createRequire(import.meta.url).resolve(pkg));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === pkg) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`package ${pkg} not found`);
    dir = parent;
  }
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  json: 'application/json; charset=utf-8',
};

/** Plain names: no slashes, no dot segments, a known extension (in the page folder or its `components/`). */
const ASSET_NAME = /^[a-z0-9][a-z0-9_-]*\.(html|js|css|svg|json)$/i;

/** The Web Push service worker (docs/attention.md, "Browser push"), served at `/sw.js`. */
const SERVICE_WORKER = 'sw.js';

/** The page's inline import maps (there is one). */
const IMPORT_MAP = /<script type="importmap">([\s\S]*?)<\/script>/g;
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The page loads only its own scripts and styles and talks only to this origin (`connect-src 'self'`
 * covers the same-origin WebSocket too). Its one inline
 * script is the import map (mapping `socket.io-client` to a shim over the global `io`), which must be
 * inline: an import map cannot be loaded from a file. It is allowed by its sha256 hash, computed from
 * the exact text served (so an edit of index.html can never leave a stale hash); nothing else inline runs.
 */
function contentSecurityPolicy(html: string): string {
  const hashes = [...html.matchAll(IMPORT_MAP)].map((m) => `'sha256-${createHash('sha256').update(m[1] ?? '').digest('base64')}'`);
  return CSP.replace("script-src 'self'", ["script-src 'self'", ...hashes].join(' '));
}

/**
 * tsc does not copy .html/.js/.css into dist/, so the hub, whether run from dist/hub/http or from
 * source under vitest, walks up to the project root (the folder with package.json) and serves the
 * source folder.
 */
export function findDashboardDir(from: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (;;) {
    const candidate = join(dir, 'hub', 'dashboard');
    if (existsSync(join(dir, 'package.json')) && existsSync(join(candidate, 'index.html'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`dashboard page not found above ${from}`);
    dir = parent;
  }
}

/** The compiled SDK client beside the page's project root (it may not exist before `npm run build`). */
export function findSdkDir(dashboardDir: string): string {
  return join(dashboardDir, '..', '..', 'dist', 'shared', 'client');
}

const noSuchFile = (reply: FastifyReply) => sendError(reply, 404, 'not_found', 'no such file');

export async function dashboardPagePlugin(app: FastifyInstance, options: DashboardPageOptions = {}): Promise<void> {
  const dir = options.dir ?? findDashboardDir();
  const sdkDir = options.sdkDir ?? findSdkDir(dir);

  function assetHeaders(reply: FastifyReply, ext: string): FastifyReply {
    return reply
      .header('content-type', CONTENT_TYPES[ext] ?? 'application/octet-stream')
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer');
  }

  async function sendAsset(reply: FastifyReply, name: string, folder = dir): Promise<FastifyReply> {
    const match = ASSET_NAME.exec(name);
    if (!match) return noSuchFile(reply);
    let body: Buffer;
    try {
      body = await readFile(join(folder, name));
    } catch {
      return noSuchFile(reply);
    }
    const ext = (match[1] ?? '').toLowerCase();
    assetHeaders(reply, ext);
    if (ext === 'html') reply.header('content-security-policy', contentSecurityPolicy(body.toString('utf8')));
    // a worker runs under its own script's policy: the page's, with no inline script at all
    if (name === SERVICE_WORKER) reply.header('content-security-policy', CSP);
    return reply.send(body);
  }

  async function sendSdkModule(reply: FastifyReply, name: string): Promise<FastifyReply> {
    if (!BROWSER_SDK_FILES.has(name)) return noSuchFile(reply);
    let body: Buffer;
    try {
      body = await readFile(join(sdkDir, name));
    } catch (error) {
      reply.log.error({ err: error, file: name }, 'SDK module missing: the page cannot load');
      return sendError(reply, 500, 'internal', `the SDK is not built (${name} missing under dist/): run \`npm run build\``);
    }
    return assetHeaders(reply, 'js').send(body);
  }

  // The flavor names come from the one registry, rendered as a module the page imports.
  const flavorsModule =
    `export const FLAVOR_NAMES = Object.freeze(${JSON.stringify(Object.fromEntries([...FLAVORS.values()].map((flavor) => [flavor.id, flavor.displayName])))});\n` +
    // the flavors `session-hub hook install <flavor>` can set up: the page's first-run hint names them
    `export const HOOK_INSTALLABLE = Object.freeze(${JSON.stringify([...FLAVORS.values()].filter((flavor) => flavor.hookConfig).map((flavor) => flavor.id))});\n`;
  app.get('/dashboard/flavors.js', (_request, reply) => assetHeaders(reply, 'js').send(flavorsModule));
  app.get('/', (_request, reply) => sendAsset(reply, 'index.html'));
  // at the root, so its scope covers the whole page (a worker's scope is at most its own folder)
  app.get(`/${SERVICE_WORKER}`, (_request, reply) => sendAsset(reply, SERVICE_WORKER));
  app.get<{ Params: { file: string } }>('/dashboard/:file', (request, reply) => sendAsset(reply, request.params.file));
  app.get<{ Params: { file: string } }>('/dashboard/components/:file', (request, reply) => sendAsset(reply, request.params.file, join(dir, 'components')));
  app.get<{ Params: { file: string } }>('/vendor/:file', async (request, reply) => {
    const module = Object.hasOwn(VENDOR_MODULES, request.params.file) ? VENDOR_MODULES[request.params.file] : undefined;
    if (!module) return noSuchFile(reply);
    let body: Buffer;
    try {
      body = await readFile(join(packageDir(module.pkg), module.file));
    } catch (error) {
      reply.log.error({ err: error, file: request.params.file }, 'view library missing: the page cannot load');
      return sendError(reply, 500, 'internal', `${module.pkg} is not installed: run \`npm install\``);
    }
    return assetHeaders(reply, 'js').send(module.commonJs ? asEsModule(body) : body);
  });
  app.get<{ Params: { file: string } }>('/sdk/client/:file', (request, reply) => sendSdkModule(reply, request.params.file));
}
