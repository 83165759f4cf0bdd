import Fastify, { type FastifyInstance } from 'fastify';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardPagePlugin, findDashboardDir } from '../../hub/http/dashboard-page.js';

describe('dashboardPagePlugin', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify();
    await app.register(dashboardPagePlugin);
    await app.ready();
  });
  afterAll(() => app.close());

  it('serves the page at / without a token', async () => {
    const res = await app.inject({ url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.body).toContain('/socket.io/socket.io.min.js');
    expect(res.body).toContain('/dashboard/app.js');
  });

  it.each([
    ['app.js', 'text/javascript; charset=utf-8'],
    ['style.css', 'text/css; charset=utf-8'],
    ['index.html', 'text/html; charset=utf-8'],
  ])('serves /dashboard/%s as %s', async (file, type) => {
    const res = await app.inject({ url: `/dashboard/${file}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it.each([
    '/dashboard/..%2Fpackage.json',
    '/dashboard/%2e%2e%2f%2e%2e%2fpackage.json',
    '/dashboard/..%5Cpackage.json',
    '/dashboard/.hidden.js',
    '/dashboard/missing.js',
    '/dashboard/app.ts',
  ])('answers 404 to %s', async (url) => {
    const res = await app.inject({ url });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('"name"');
  });

  it('never serves a file outside the page folder', async () => {
    for (const url of ['/dashboard/../package.json', '/dashboard/../../package.json', '/dashboard/%2e%2e/package.json']) {
      const res = await app.inject({ url });
      expect(res.body).not.toContain('session-hub');
    }
  });

  it('finds the source folder from the compiled location too', () => {
    const root = join(import.meta.dirname, '..', '..');
    expect(findDashboardDir(join(root, 'dist', 'hub', 'http'))).toBe(join(root, 'hub', 'dashboard'));
    expect(findDashboardDir(join(root, 'hub', 'http'))).toBe(join(root, 'hub', 'dashboard'));
    expect(() => findDashboardDir('/')).toThrow(/not found/);
  });
});
