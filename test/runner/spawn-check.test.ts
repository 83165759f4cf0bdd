/**
 * The runner's refusals of section 14, before anything starts: a path outside every root (a
 * symlink inside a root pointing out included), an agent this machine lacks, bypassPermissions
 * without --allow-bypass, a bad payload; and the agent's environment without the machine token.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentEnv } from '../../runner/agent-env.js';
import { checkSpawn, type MachinePolicy } from '../../runner/spawn-check.js';
import { resolveRoots } from '../../runner/roots.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'session-hub-roots-')));
const root = join(base, 'root');
const inside = join(root, 'project');
const outside = join(base, 'elsewhere');
mkdirSync(inside, { recursive: true });
mkdirSync(outside, { recursive: true });
symlinkSync(outside, join(root, 'link-out'));
symlinkSync(inside, join(base, 'link-in'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const policy: MachinePolicy = { roots: resolveRoots([root]), agents: [{ flavor: 'claude', version: '2.1.197', path: '/usr/bin/claude' }], allowBypass: false };
const request = (over: Record<string, unknown>) => ({ requestId: 'req-1', flavor: 'claude', path: inside, requestedBy: 'alice', ...over });

describe('machine-spawn refusals', () => {
  it('starts under a root, the path resolved', () => {
    const checked = checkSpawn(request({ path: join(base, 'link-in') }), policy);
    expect(checked.ok && checked.plan.cwd).toBe(inside);
  });

  it.each([
    ['a directory outside every root', outside],
    ['a symlink inside a root that points outside', join(root, 'link-out')],
    ['a .. that climbs out', join(root, '..', 'elsewhere')],
    ['the parent of a root', base],
  ])('refuses %s with path_outside_roots', (_, path) => {
    const checked = checkSpawn(request({ path }), policy);
    expect(checked.ok ? null : checked.ack.error.code).toBe('path_outside_roots');
  });

  it('refuses a flavor whose CLI was not found, and one the runner cannot drive', () => {
    for (const flavor of ['codex', 'no-such-agent']) {
      const checked = checkSpawn(request({ flavor }), policy);
      expect(checked.ok ? null : checked.ack.error.code).toBe('agent_unavailable');
    }
  });

  it('refuses bypassPermissions without --allow-bypass, accepts it with', () => {
    const refused = checkSpawn(request({ permissionMode: 'bypassPermissions' }), policy);
    expect(refused.ok ? null : refused.ack.error.code).toBe('forbidden');
    expect(refused.ok ? '' : refused.ack.error.message).toContain('--allow-bypass');
    expect(checkSpawn(request({ permissionMode: 'bypassPermissions' }), { ...policy, allowBypass: true }).ok).toBe(true);
  });

  it('refuses a bad payload naming the field, and a resume under another flavor\'s key', () => {
    const bad = checkSpawn(request({ path: 'relative/dir' }), policy);
    expect(bad.ok ? null : bad.ack.error).toMatchObject({ code: 'invalid_payload', message: expect.stringContaining('path') });
    const wrongKey = checkSpawn(request({ resume: { sid: 'abc', tokenKey: 'codexSessionId', token: 't' } }), policy);
    expect(wrongKey.ok ? null : wrongKey.ack.error.code).toBe('invalid_payload');
  });

  it('refuses a resume token that is not the agent\'s own id (an option above all), and a model that is an option: nothing is started', () => {
    const sid = '11111111-2222-4333-8444-555555555555';
    const hostile = [`--settings={"apiKeyHelper":"id > ~/proof; echo k"}`, '-c', 'a b', 'not-a-uuid', '3f1c9a52-7d1e-4b8e-9c1a-claude-0001'];
    for (const token of hostile) {
      const checked = checkSpawn(request({ resume: { sid, tokenKey: 'claudeSessionId', token } }), policy);
      expect(checked.ok ? null : checked.ack.error, token).toMatchObject({ code: 'invalid_payload', message: expect.stringMatching(/^resume\.token must be Claude Code's session id, a UUID/) });
    }
    const own = checkSpawn(request({ resume: { sid, tokenKey: 'claudeSessionId', token: randomUUID() } }), policy);
    expect(own.ok).toBe(true);
    const model = checkSpawn(request({ model: '--settings=x' }), policy);
    expect(model.ok ? null : model.ack.error).toMatchObject({ code: 'invalid_payload', message: expect.stringContaining('model') });
    expect(checkSpawn(request({ model: 'claude-sonnet-4-5@20250929' }), policy).ok).toBe(true);
  });

  it('refuses a directory that does not exist', () => {
    const checked = checkSpawn(request({ path: join(root, 'missing') }), policy);
    expect(checked.ok ? null : checked.ack.error.code).toBe('not_found');
  });
});

describe('the agent environment', () => {
  it('holds no Session Hub variable and no copy of the machine token', () => {
    const env = agentEnv({ PATH: '/bin', HOME: '/home/a', SESSION_HUB_MACHINE_TOKEN: 'sh_secret', SESSION_HUB_URL: 'http://hub', SESSION_HUB_TOKEN: 'x', OTHER: 'Bearer sh_secret', ANTHROPIC_API_KEY: 'k' }, ['sh_secret']);
    expect(env).toEqual({ PATH: '/bin', HOME: '/home/a', ANTHROPIC_API_KEY: 'k', SESSION_HUB_RUNNER_DRIVEN: '1' });
  });
});
