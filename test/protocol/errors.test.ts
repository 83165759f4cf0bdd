import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODE_LIST, ERROR_CODES, HubError } from '../../shared/errors.js';

describe('the error catalogue', () => {
  it('lists the codes of spec section 2 and 11, each once, each with an HTTP status', () => {
    expect(new Set(ERROR_CODE_LIST).size).toBe(ERROR_CODE_LIST.length);
    for (const code of ['invalid_payload', 'not_found', 'forbidden', 'payload_too_large', 'rate_limited', 'conflict', 'internal', 'unauthorized']) {
      expect(ERROR_CODE_LIST).toContain(code);
    }
    for (const code of ERROR_CODE_LIST) expect(new HubError(code, 'x').status).toBe(ERROR_CODES[code].status);
  });

  it('documents every code in docs/errors.md', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    for (const code of ERROR_CODE_LIST) expect(doc).toContain(`| \`${code}\` | ${ERROR_CODES[code].status} |`);
  });
});
