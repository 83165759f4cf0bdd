/**
 * Serves the dashboard web page (spec section 10): `GET /` without a token, and its static
 * assets under `/dashboard/<file>`. The page asks for a token itself and talks to the hub
 * over `/dashboard` and the HTTP API.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { FLAVORS } from '../../shared/flavors.js';

export interface DashboardPageOptions {
  /** The folder holding index.html and its assets; found from the project root when omitted. */
  dir?: string;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  json: 'application/json; charset=utf-8',
};

/** One flat folder of plain names: no slashes, no dot segments, a known extension. */
const ASSET_NAME = /^[a-z0-9][a-z0-9_-]*\.(html|js|css|svg|json)$/i;

// The page loads only its own scripts and styles and talks only to this origin.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self' ws: wss:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

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

export async function dashboardPagePlugin(app: FastifyInstance, options: DashboardPageOptions = {}): Promise<void> {
  const dir = options.dir ?? findDashboardDir();

  async function sendAsset(reply: FastifyReply, name: string): Promise<FastifyReply> {
    const match = ASSET_NAME.exec(name);
    if (!match) return reply.code(404).send({ error: 'not_found', message: 'no such file' });
    let body: Buffer;
    try {
      body = await readFile(join(dir, name));
    } catch {
      return reply.code(404).send({ error: 'not_found', message: 'no such file' });
    }
    const ext = (match[1] ?? '').toLowerCase();
    reply
      .header('content-type', CONTENT_TYPES[ext] ?? 'application/octet-stream')
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer');
    if (ext === 'html') reply.header('content-security-policy', CSP);
    return reply.send(body);
  }

  // The flavor names come from the one registry, rendered as a module the page imports.
  const flavorsModule = `export const FLAVOR_NAMES = Object.freeze(${JSON.stringify(
    Object.fromEntries([...FLAVORS.values()].map((flavor) => [flavor.id, flavor.displayName])),
  )});\n`;
  app.get('/dashboard/flavors.js', (_request, reply) =>
    reply.header('content-type', CONTENT_TYPES.js).header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff').send(flavorsModule),
  );
  app.get('/', (_request, reply) => sendAsset(reply, 'index.html'));
  app.get<{ Params: { file: string } }>('/dashboard/:file', (request, reply) => sendAsset(reply, request.params.file));
}
