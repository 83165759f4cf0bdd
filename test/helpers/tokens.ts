/** Fixed tokens for tests: two tenants, every role. */
export const TEST_TOKENS = {
  runner: 'runner-token-default-0001',
  dashboard: 'dashboard-token-default-0001',
  admin: 'admin-token-default-0001',
  operator: 'operator-token-default-0001',
  machine: 'machine-token-default-0001',
  machine2: 'machine-token-default-0002',
  otherRunner: 'runner-token-other-0001',
  otherDashboard: 'dashboard-token-other-0001',
  otherAdmin: 'admin-token-other-0001',
  otherOperator: 'operator-token-other-0001',
} as const;

export const TEST_TOKEN_SPEC = [
  `runner:default:${TEST_TOKENS.runner}`,
  `dashboard:default:${TEST_TOKENS.dashboard}`,
  `admin:default:${TEST_TOKENS.admin}`,
  `operator:default:${TEST_TOKENS.operator}`,
  `machine:default:${TEST_TOKENS.machine}`,
  `machine:default:${TEST_TOKENS.machine2}`,
  `runner:other:${TEST_TOKENS.otherRunner}`,
  `dashboard:other:${TEST_TOKENS.otherDashboard}`,
  `admin:other:${TEST_TOKENS.otherAdmin}`,
  `operator:other:${TEST_TOKENS.otherOperator}`,
].join(',');
