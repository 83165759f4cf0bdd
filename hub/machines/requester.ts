import { tokenIdOf, type TokenIdentity } from '../services/tokens.js';

/** Who asked a machine to act: the token's namespace, its public id and label (never the token). */
export interface Requester {
  namespace: string;
  tokenId: string;
  label: string | null;
  /** What the runner logs and the hub records: the label, else the token's id. */
  name: string;
}

export function requesterOf(identity: TokenIdentity): Requester {
  const tokenId = tokenIdOf(identity.tokenHash);
  const label = identity.label ?? null;
  return { namespace: identity.namespace, tokenId, label, name: label ?? `token ${tokenId}` };
}
