/** The Session Hub client SDK: `RunnerClient` (read/write, `/runner`) and `DashboardClient` (read only). */
export { RunnerClient, type RunnerClientOptions, type RunnerClientEvents, type RunnerSocket, type MetadataUpdater, type StateUpdater, type WriteOptions } from './runner-client.js';
export { DashboardClient, type DashboardClientEvents, type DashboardSocket } from './dashboard-client.js';
export { HubRequestError, isFinalError, type HubRequestErrorCode } from './errors.js';
export type { ClientOptions } from './connection.js';
export type { BackoffOptions } from './backoff.js';
