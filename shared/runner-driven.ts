/**
 * The variable `session-hub runner` sets in the environment of every agent it drives. The runner
 * reports that agent itself; where the project also has our hooks installed, the hook bridge sees it
 * and does nothing, so each turn reaches the hub once. No imports: the bundled bridge reads it.
 */
export const RUNNER_DRIVEN_ENV = 'SESSION_HUB_RUNNER_DRIVEN';
