/**
 * The hub's VAPID key pair (RFC 8292), which signs every push so push services know the sender.
 * Given by environment (both halves), or made on first start and kept in the database: one row
 * every process of a cluster reads, so a browser subscribed through one process gets pushes
 * signed by whichever process sends (a subscription is bound to the public key it was made with).
 */
import webpush from 'web-push';
import type { HubConfig } from '../config.js';
import type { Store } from '../store/sql.js';
import { vapidKeysOrInsert, type VapidKeys } from '../store/push.js';

export interface Vapid extends VapidKeys {
  subject: string;
}

/** Why a base64url key is unusable, or null. */
function keyProblem(text: string, bytes: number): string | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return 'is not base64url';
  const length = Buffer.from(text, 'base64url').length;
  return length === bytes ? null : `decodes to ${length} bytes, not ${bytes}`;
}

/** The pair from the environment, checked; undefined when neither half is set. */
function keysFromConfig(config: HubConfig): VapidKeys | undefined {
  const { vapidPublicKey: publicKey, vapidPrivateKey: privateKey } = config;
  if (publicKey === undefined && privateKey === undefined) return undefined;
  if (publicKey === undefined || privateKey === undefined) {
    throw new Error('invalid configuration: SESSION_HUB_VAPID_PUBLIC_KEY and SESSION_HUB_VAPID_PRIVATE_KEY go together: set both, or neither (the hub then makes a pair)');
  }
  const problem =
    (keyProblem(publicKey, 65) && `SESSION_HUB_VAPID_PUBLIC_KEY ${keyProblem(publicKey, 65)}`) ??
    (keyProblem(privateKey, 32) && `SESSION_HUB_VAPID_PRIVATE_KEY ${keyProblem(privateKey, 32)}`);
  if (problem) throw new Error(`invalid configuration: ${problem} (npx web-push generate-vapid-keys prints a valid pair)`);
  return { publicKey, privateKey };
}

export async function loadVapid(store: Store, config: HubConfig, now: number): Promise<Vapid> {
  const keys = keysFromConfig(config) ?? (await vapidKeysOrInsert(store, () => webpush.generateVAPIDKeys(), now));
  return { ...keys, subject: config.vapidSubject };
}
