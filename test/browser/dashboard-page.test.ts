import Fastify, { type FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_SDK_FILES, dashboardPagePlugin, findDashboardDir, findSdkDir } from '../../hub/http/dashboard-page.js';

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

  it('allows the inline import map by its hash and nothing else inline', async () => {
    const res = await app.inject({ url: '/' });
    const map = /<script type="importmap">([\s\S]*?)<\/script>/.exec(res.body)?.[1];
    expect(JSON.parse(map ?? 'null')).toEqual({
      imports: {
        'socket.io-client': '/dashboard/socket-io-client.js',
        preact: '/vendor/preact.mjs',
        'preact/hooks': '/vendor/preact-hooks.mjs',
        htm: '/vendor/htm.mjs',
        'parse-diff': '/vendor/parse-diff.mjs',
      },
    });
    const hash = createHash('sha256').update(map ?? '').digest('base64');
    const directives = String(res.headers['content-security-policy']).split('; ');
    expect(directives.find((d) => d.startsWith('script-src'))).toBe(`script-src 'self' 'sha256-${hash}'`);
    // the page talks to its own origin only (the same-origin WebSocket included)
    expect(directives.find((d) => d.startsWith('connect-src'))).toBe("connect-src 'self'");
    for (const url of Object.values(JSON.parse(map ?? '{}').imports as Record<string, string>)) {
      expect((await app.inject({ url })).statusCode, url).toBe(200);
    }
  });

  it('serves the view library (Preact, htm) from node_modules as ES modules, and nothing else from there', async () => {
    const preact = await app.inject({ url: '/vendor/preact.mjs' });
    expect(preact.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(preact.body).toMatch(/export\s*\{/);
    const hooks = await app.inject({ url: '/vendor/preact-hooks.mjs' });
    expect(hooks.body).toMatch(/from\s*["']preact["']/);
    expect((await app.inject({ url: '/vendor/htm.mjs' })).body).toMatch(/export\s*\{|export default/);
    // the CommonJS diff parser, served as an ES module whose default export is its function
    const parseDiff = await import(`data:text/javascript,${encodeURIComponent((await app.inject({ url: '/vendor/parse-diff.mjs' })).body)}`);
    expect(parseDiff.default('diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n')[0]).toMatchObject({ additions: 1, deletions: 1, to: 'x' });
    for (const url of ['/vendor/preact.js', '/vendor/package.json', '/vendor/..%2Fpackage.json', '/vendor/preact.mjs.map', '/vendor/zod.mjs']) {
      expect((await app.inject({ url })).statusCode, url).toBe(404);
    }
  });

  it('serves the components folder, and only plain names in it', async () => {
    expect((await app.inject({ url: '/dashboard/components/app.js' })).statusCode).toBe(200);
    for (const url of ['/dashboard/components/..%2Fapp.js', '/dashboard/components/missing.js', '/dashboard/components/%2e%2e%2f%2e%2e%2fpackage.json']) {
      expect((await app.inject({ url })).statusCode, url).toBe(404);
    }
  });

  it('serves the compiled SDK modules the page imports', async () => {
    const res = await app.inject({ url: '/sdk/client/dashboard-client.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain('class DashboardClient');
  });

  it.each([
    '/sdk/client/runner-client.js',
    '/sdk/client/index.js',
    '/sdk/client/dashboard-client.ts',
    '/sdk/client/dashboard-client.js.map',
    '/sdk/client/..%2F..%2F..%2Fpackage.json',
    '/sdk/client/%2e%2e%2fprotocol%2fsession.js',
    '/sdk/protocol/session.js',
  ])('answers 404 to %s', async (url) => {
    const res = await app.inject({ url });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('session-hub');
  });

  it('says to build when the SDK is not compiled', async () => {
    const bare = Fastify();
    await bare.register(dashboardPagePlugin, { sdkDir: join(import.meta.dirname, 'no-such-dist') });
    const res = await bare.inject({ url: '/sdk/client/dashboard-client.js' });
    await bare.close();
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ error: 'internal', message: expect.stringContaining('npm run build') });
  });

  it('lists exactly what dashboard-client.js imports at run time, and no node: module or zod', () => {
    const dir = findSdkDir(findDashboardDir());
    const reached = new Set<string>();
    const bare = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      const code = readFileSync(join(dir, file), 'utf8');
      // tsc writes each import / re-export on one line: `import { a } from './x.js';`, `import 'x';`
      for (const [, from, sideEffect] of code.matchAll(/^\s*(?:import|export)\b[^\n]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gm)) {
        const spec = from ?? sideEffect ?? '';
        if (spec.startsWith('./')) visit(spec.slice(2));
        else bare.add(spec);
      }
      expect(code).not.toMatch(/\bimport\(/);
    };
    visit('dashboard-client.js');
    expect([...reached].sort()).toEqual([...BROWSER_SDK_FILES].sort());
    expect([...bare]).toEqual(['socket.io-client']);
  });

  it('finds the source folder from the compiled location too', () => {
    const root = join(import.meta.dirname, '..', '..');
    expect(findDashboardDir(join(root, 'dist', 'hub', 'http'))).toBe(join(root, 'hub', 'dashboard'));
    expect(findDashboardDir(join(root, 'hub', 'http'))).toBe(join(root, 'hub', 'dashboard'));
    expect(() => findDashboardDir('/')).toThrow(/not found/);
  });
});
