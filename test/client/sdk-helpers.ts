import { afterEach } from 'vitest';
import { DashboardClient } from '../../shared/client/dashboard-client.js';
import { RunnerClient, type RunnerClientOptions } from '../../shared/client/runner-client.js';
import { useTestHub, type TestHub } from '../helpers/hub.js';

const open: { close(): unknown }[] = [];

/** A RunnerClient on the test hub; closed by closeSdkClients(). */
export async function runnerClient(url: string, token: string, options: Partial<RunnerClientOptions> = {}): Promise<RunnerClient> {
  const client = await RunnerClient.connect({ url, token, requestTimeoutMs: 2000, ...options });
  open.push(client);
  return client;
}

export async function dashboardClient(url: string, token: string): Promise<DashboardClient> {
  const client = await DashboardClient.connect({ url, token, requestTimeoutMs: 2000 });
  open.push(client);
  return client;
}

export async function closeSdkClients(): Promise<void> {
  await Promise.all(open.splice(0).map((client) => client.close()));
}

/** Per test: a fresh in-process hub handed to `setUp`; afterwards the SDK clients close, then the hub. */
export function useSdkTestHub(setUp: (hub: TestHub) => void): void {
  useTestHub(setUp);
  // registered after useTestHub's hooks, so it runs before the hub closes
  afterEach(closeSdkClients);
}

export async function getJson<T>(url: string, token: string): Promise<T> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}
