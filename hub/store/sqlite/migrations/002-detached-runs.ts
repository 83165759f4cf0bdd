/**
 * Detached runs: a runner that holds no socket for the run's life (the hook bridge, one process per
 * hook event). Such a run is never marked disconnected, so the run grace never ends it; the sweep
 * ends it after the idle time with no session activity instead (docs/lifecycle.md).
 */
export const migration002 = `
ALTER TABLE runs ADD COLUMN detached INTEGER NOT NULL DEFAULT 0;
`;
