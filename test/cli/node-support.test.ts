import { describe, expect, it } from 'vitest';
import { unsupportedNode } from '../../hub/cli/node-support.js';

describe('the Node.js releases the hub refuses (better-sqlite3 12 can abort on them)', () => {
  it('refuses 24.19.0 to 24.21.x with one line naming the fix', () => {
    for (const version of ['v24.19.0', 'v24.20.1', 'v24.21.0', 'v24.21.9']) {
      const line = unsupportedNode(version);
      expect(line, version).toContain(`Node.js ${version} is not supported`);
      expect(line).toContain('Install Node 24.22 or newer');
      expect(line).not.toContain('\n');
    }
  });

  it('runs on the releases measured to pass: 20.x, 22.x, 24 up to 24.18, 24.22 and newer', () => {
    for (const version of ['v20.19.0', 'v20.20.2', 'v22.12.0', 'v22.23.5', 'v24.0.0', 'v24.18.1', 'v24.22.0', 'v24.22.3', 'v25.1.0']) {
      expect(unsupportedNode(version), version).toBeUndefined();
    }
  });
});
