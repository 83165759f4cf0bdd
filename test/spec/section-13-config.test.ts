/**
 * Spec section 13: every variable of the table, read from the environment, with its default. (That
 * the real process honours each one is test/process/env-config.test.ts.)
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_VARS, loadConfig } from '../../hub/config.js';

const TABLE = {
  SESSION_HUB_HOST: ['host', '127.0.0.1'],
  SESSION_HUB_PORT: ['port', 3737],
  SESSION_HUB_DATA: ['dataDir', './data'],
  SESSION_HUB_TOKENS: ['tokens', undefined],
  SESSION_HUB_SWEEP_MS: ['sweepMs', 60_000],
  SESSION_HUB_ALIVE_TIMEOUT_MS: ['aliveTimeoutMs', 30_000],
  SESSION_HUB_RUN_GRACE_MS: ['runGraceMs', 120_000],
  SESSION_HUB_TURN_TIMEOUT_MS: ['turnTimeoutMs', 300_000],
  SESSION_HUB_TOOL_TIMEOUT_MS: ['toolTimeoutMs', 3_600_000],
  SESSION_HUB_IDLE_MS: ['idleMs', 3_600_000],
  SESSION_HUB_TOKEN_TTL_MS: ['tokenTtlMs', 2_592_000_000],
  SESSION_HUB_EVENT_KEEP: ['eventKeep', 100_000],
  SESSION_HUB_EVENT_KEEP_MS: ['eventKeepMs', 86_400_000],
  LOG_LEVEL: ['logLevel', 'info'],
} as const;

describe('spec 13: configuration', () => {
  it('has the default of the table for every variable, and the database in <data>/hub.db', () => {
    const config = loadConfig({});
    for (const [variable, [key, value]] of Object.entries(TABLE)) {
      expect(ENV_VARS[key], variable).toBe(variable);
      expect(config[key], variable).toBe(value);
    }
    expect(config.databaseFile).toBe(resolve('./data', 'hub.db'));
    // section 12's rate limit defaults
    expect([config.rateLimitPerSecond, config.rateLimitBurst]).toEqual([200, 400]);
  });

  it('reads each variable from the environment', () => {
    const env = {
      SESSION_HUB_HOST: '0.0.0.0',
      SESSION_HUB_PORT: '0',
      SESSION_HUB_DATA: '/tmp/somewhere',
      SESSION_HUB_TOKENS: 'runner:default:abc',
      SESSION_HUB_SWEEP_MS: '11',
      SESSION_HUB_ALIVE_TIMEOUT_MS: '12',
      SESSION_HUB_RUN_GRACE_MS: '13',
      SESSION_HUB_TURN_TIMEOUT_MS: '14',
      SESSION_HUB_TOOL_TIMEOUT_MS: '19',
      SESSION_HUB_IDLE_MS: '15',
      SESSION_HUB_TOKEN_TTL_MS: '16',
      SESSION_HUB_EVENT_KEEP: '17',
      SESSION_HUB_EVENT_KEEP_MS: '18',
      LOG_LEVEL: 'debug',
    };
    const config = loadConfig(env);
    expect(Object.fromEntries(Object.entries(TABLE).map(([variable, [key]]) => [variable, String(config[key])]))).toEqual(env);
    expect(config.databaseFile).toBe('/tmp/somewhere/hub.db');
  });

  it('refuses a value that is not one, naming the variable', () => {
    expect(() => loadConfig({ SESSION_HUB_PORT: 'http' })).toThrow(/SESSION_HUB_PORT/);
    expect(() => loadConfig({ SESSION_HUB_SWEEP_MS: '-5' })).toThrow(/SESSION_HUB_SWEEP_MS/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });
});
