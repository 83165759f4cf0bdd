/**
 * `machine-register` (spec section 14): a machine token says which computer it is. The machine is
 * stored (keyed by its id, owned by the token that holds it); one held by another token that still
 * holds answers forbidden.
 */
import { withArticle } from '../../shared/article.js';
import { MACHINE_ROLES } from '../../shared/protocol/auth.js';
import { hubError } from '../../shared/errors.js';
import type { Machine } from '../../shared/protocol/machines.js';
import type { z } from 'zod';
import type { MachineRegisterPayloadSchema } from '../../shared/protocol/machines.js';
import type { HubDeps } from '../services/deps.js';
import type { TokenIdentity } from '../services/tokens.js';
import { countMachinesOfToken, getMachine, getMachineHolder, saveMachine, touchMachine } from '../store/machines.js';
import { requesterOf } from './requester.js';
import { machineView } from './view.js';

export async function registerMachine(deps: HubDeps, identity: TokenIdentity, payload: z.infer<typeof MachineRegisterPayloadSchema>): Promise<Machine> {
  if (!MACHINE_ROLES.includes(identity.role)) {
    throw hubError.forbidden(`registering a machine needs a machine token (session-hub token create --role machine --label "my laptop"); this is ${withArticle(identity.role)} token`);
  }
  const who = requesterOf(identity);
  const now = deps.clock.now();
  return deps.store.transaction(async (tx) => {
    const holder = await getMachineHolder(tx, { machineId: payload.machineId, now });
    if (holder && holder.holds && (holder.tokenId !== who.tokenId || holder.namespace !== who.namespace)) {
      throw hubError.forbidden(`machine ${payload.machineId} is registered by another token; give this runner its own machine id (remove its machine.json) or use that machine's token`);
    }
    // a bounded number of machines per token: a token that registers new ids without end fills the list (issue 45.7)
    const known = holder !== undefined && holder.tokenId === who.tokenId && holder.namespace === who.namespace;
    const cap = deps.config.machinesPerToken;
    if (!known && (await countMachinesOfToken(tx, { namespace: who.namespace, tokenId: who.tokenId })) >= cap) {
      throw hubError.forbidden(`this machine token has registered ${cap} machines already, the most one token may (SESSION_HUB_MACHINES_PER_TOKEN): forget one it no longer runs on the page (Machines → Forget, or DELETE /api/machines/:machineId), or give this computer its own machine token`);
    }
    await saveMachine(tx, { ...payload, namespace: who.namespace, tokenId: who.tokenId, tokenLabel: who.label, now });
    const stored = await getMachine(tx, { namespace: who.namespace, machineId: payload.machineId });
    if (!stored) throw hubError.internal();
    return machineView(stored, true);
  });
}

/** Its socket dropped: offline at once (nothing stored says online), last seen now. */
export async function machineSocketLost(deps: HubDeps, machineId: string): Promise<void> {
  await touchMachine(deps.store, { machineId, now: deps.clock.now() });
}
