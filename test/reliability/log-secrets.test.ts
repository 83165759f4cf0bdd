/**
 * Issue 18: no secret in the log, whatever the parameter is called or however it is spelled. The
 * real hub at LOG_LEVEL=trace is sent secrets in query strings (plain, percent-encoded, upper case,
 * under innocent names), on API routes, an unknown route, a malformed URL, the dashboard page and
 * the Socket.IO handshake; then its whole output is searched for each secret.
 */
import { describe, expect, it } from 'vitest';
import { handshakeError } from '../helpers/clients.js';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';

stopHubsAfterEach();

describe('secrets in request URLs', () => {
  it('never reach the output, in any spelling', async () => {
    const hub = await spawnHub({ env: { LOG_LEVEL: 'trace' } });
    const secrets: string[] = [];
    const secret = () => {
      const value = `s3cr3t-${secrets.length}-${Math.random().toString(36).slice(2)}`;
      secrets.push(value);
      return value;
    };
    const queries = [
      () => `access_token=${secret()}`,
      () => `%74oken=${secret()}`,
      () => `TOKEN=${secret()}`,
      () => `to%6Ben=${secret()}`,
      () => `api%5Fkey=${secret()}`,
      () => `password=${secret()}`,
      () => `t=${secret()}`,
      () => `a=1&token=${secret()}&b=2`,
      () => `${secret()}`,
    ];
    const paths = ['/api/sessions', '/api/whoami', '/api/sessions/some-sid/history', '/no-such-route', '/api/sessions/%zz', '/'];
    for (const path of paths) {
      for (const query of queries) {
        const response = await fetch(`${hub.url}${path}?${query()}`, { headers: { authorization: `Bearer ${hub.tokens.dashboard}` } });
        await response.arrayBuffer();
      }
    }
    // the handshake: a wrong token in auth, and one in the query of the Engine.IO request
    expect(await handshakeError(hub.url, '/runner', { token: secret() })).toBe('unauthorized');
    await (await fetch(`${hub.url}/socket.io/?EIO=4&transport=polling&token=${secret()}`)).arrayBuffer();
    await hub.stop();

    const output = hub.output();
    // the requests were logged (so the test looks at real lines), their paths kept
    expect(output).toContain('"url":"/api/whoami?[query not logged]"');
    expect(output).toContain('"url":"/no-such-route?[query not logged]"');
    for (const value of secrets) expect(output).not.toContain(value);
  });
});
