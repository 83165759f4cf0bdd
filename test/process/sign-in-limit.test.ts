/**
 * issue 33.6 (c): the sign-in code route had no rate limit and logged a line per refused code. A
 * real hub process: from one address, 10 attempts then 429 naming the limit; from many loopback
 * addresses (127.0.0.x), the whole hub's limit; and its log holds one refusal line, with the count.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { spawnHub, stopHubsAfterEach } from '../helpers/hub-process.js';

stopHubsAfterEach();

/** POST /api/sign-in/code from a chosen loopback address. */
function attempt(port: number, from: string): Promise<{ status: number; body: { error?: string; message?: string } }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/sign-in/code', localAddress: from, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as { error?: string; message?: string } }));
    });
    req.once('error', reject);
    req.end(JSON.stringify({ code: 'x'.repeat(24) }));
  });
}

describe('sign-in code attempts', () => {
  it('are limited per address and for the whole hub, and refusals are logged once, counted', async () => {
    const hub = await spawnHub();
    const fromOne: number[] = [];
    for (let i = 0; i < 12; i++) fromOne.push((await attempt(hub.port, '127.0.0.1')).status);
    expect(fromOne).toEqual([...Array(10).fill(401), 429, 429]);
    const limited = await attempt(hub.port, '127.0.0.1');
    expect(limited.body).toMatchObject({ error: 'rate_limited', message: expect.stringContaining('too many sign-in attempts from this address') });

    // 40 more from fresh addresses, two each: the hub's own limit (30 at once) ends them
    const spread: { status: number; body: { message?: string } }[] = [];
    for (let i = 2; i < 22; i++) for (let j = 0; j < 2; j++) spread.push(await attempt(hub.port, `127.0.0.${i}`));
    // each address is under its own limit: every 429 is the hub's (its bucket refills 1/s while the test runs)
    expect(spread.filter((a) => a.status === 401).length).toBeLessThan(spread.length);
    expect(spread.some((a) => a.status === 429 && a.body.message?.includes('on this hub'))).toBe(true);

    const lines = hub.output().split('\n').filter((line) => line.includes('sign-in link refused'));
    expect(lines).toHaveLength(1);
  }, 60_000);
});
