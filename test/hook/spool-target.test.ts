/**
 * The spool's key per hub and token (hub/hook/spool-target.ts): 64-bit FNV-1a of the hub's origin
 * and the token, computed without BigInt on the hook path; checked here against a BigInt reference.
 */
import { describe, expect, it } from 'vitest';
import { hubOrigin, targetKey } from '../../hub/hook/spool-target.js';

function fnv1a64Reference(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}

describe('the spool key of a hub and token', () => {
  it('is FNV-1a 64 of origin and token', () => {
    const cases = [
      { url: 'http://127.0.0.1:3737', token: 'shub_runner_AbCdEfGhIjKlMnOpQrStUvWxYz012345' },
      { url: 'https://hub.example.com/some/path?q=1', token: 'x' },
      { url: 'not a url', token: '' },
      { url: 'http://[::1]:80/', token: 'ünïcødé ✓ 🎉' },
    ];
    for (const target of cases) expect(targetKey(target)).toBe(fnv1a64Reference(`${hubOrigin(target.url)}\n${target.token}`));
  });

  it('is one key per hub origin and token, and differs when either differs', () => {
    const a = targetKey({ url: 'http://127.0.0.1:3737/', token: 't1' });
    expect(targetKey({ url: 'http://127.0.0.1:3737', token: 't1' })).toBe(a);
    expect(targetKey({ url: 'http://127.0.0.1:3738', token: 't1' })).not.toBe(a);
    expect(targetKey({ url: 'http://127.0.0.1:3737', token: 't2' })).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
  });
});
