/**
 * A machine runner as the hub sees it, in a test: a real socket.io-client on `/runner` that speaks
 * section 14 of the wire protocol (register, answer machine-spawn with a real session-start, list
 * directories, interrupt, stop). It is a peer over loopback, not a stand-in for hub code: the real
 * runner (`session-hub runner`) speaks the same events. Every hub → runner event it gets is kept, so
 * a test can show that a refusal started nothing.
 */
import type {
  MachineActionAck,
  MachineDirsAck,
  MachineDirsPayload,
  MachineInterruptPayload,
  MachineRegisterAck,
  MachineRegisterPayload,
  MachineSpawnAck,
  MachineSpawnPayload,
  MachineStopPayload,
} from '../../shared/protocol/machines.js';
import { getFlavor } from '../../shared/flavors.js';
import { connectRunner, type RunnerSocket } from '../helpers/clients.js';

export interface MachinePeer {
  socket: RunnerSocket;
  register: MachineRegisterPayload;
  registered: MachineRegisterAck;
  /** Every hub → runner machine event received, in order. */
  received: { event: string; payload: unknown }[];
  /** The sessions it started (sid → the spawn), as a runner drives them. */
  driving: Map<string, MachineSpawnPayload>;
  /** Replaces how it answers a spawn (default: a real session-start, then the ack with its sid). */
  onSpawn: (payload: MachineSpawnPayload) => Promise<MachineSpawnAck | undefined>;
}

let counter = 0;

export async function connectMachine(url: string, token: string, overrides: Partial<MachineRegisterPayload> = {}): Promise<MachinePeer> {
  const socket = await connectRunner(url, token);
  counter += 1;
  const register: MachineRegisterPayload = {
    machineId: `machine-test-${process.pid}-${counter}`,
    name: `laptop ${counter}`,
    host: 'laptop.local',
    platform: 'linux',
    roots: ['/home/alice/code'],
    // what claude --version prints
    agents: [{ flavor: 'claude', version: '2.1.197 (Claude Code)', path: '/usr/bin/claude' }],
    allowBypass: false,
    ...overrides,
  };
  const peer: MachinePeer = { socket, register, registered: undefined as unknown as MachineRegisterAck, received: [], driving: new Map(), onSpawn: async () => undefined };

  peer.onSpawn = async (spawn) => {
    const tokenKey = getFlavor(spawn.flavor)?.resumeTokenKey;
    const started = await socket.emitWithAck('session-start', {
      tag: spawn.resume ? `resumed-${spawn.requestId}` : `machine-${spawn.requestId}`,
      flavor: spawn.flavor,
      source: spawn.resume ? 'resume' : 'startup',
      ...(spawn.resume ? { sid: spawn.resume.sid } : {}),
      metadata: {
        path: spawn.path,
        host: register.host,
        machineId: register.machineId,
        drivenBy: 'machine',
        ...(spawn.permissionMode ? { permissionMode: spawn.permissionMode } : {}),
        // the agent's own session id (a UUID, as Claude Code's and Codex's), as a runner reports it once the agent says it
        ...(!spawn.resume && tokenKey ? { [tokenKey]: spawn.requestId } : {}),
      },
    });
    if (!started.ok) return { ok: false, error: { code: 'spawn_failed', message: started.error.message } };
    peer.driving.set(started.session.sid, spawn);
    if (spawn.prompt) await socket.emitWithAck('prompt-submit', { sid: started.session.sid, prompt: spawn.prompt });
    return { ok: true, sid: started.session.sid };
  };
  const keep = (event: string, payload: unknown) => peer.received.push({ event, payload });
  socket.on('machine-spawn', (payload: MachineSpawnPayload, ack: (response: MachineSpawnAck) => void) => {
    keep('machine-spawn', payload);
    // no answer at all: the agent never reported its session (spawn_timeout)
    void peer.onSpawn(payload).then((answer) => answer && ack(answer));
  });
  socket.on('machine-dirs', (payload: MachineDirsPayload, ack: (response: MachineDirsAck) => void) => {
    keep('machine-dirs', payload);
    ack({ ok: true, path: payload.path, dirs: ['api', 'web'] });
  });
  socket.on('machine-interrupt', (payload: MachineInterruptPayload, ack: (response: MachineActionAck) => void) => {
    keep('machine-interrupt', payload);
    if (!peer.driving.has(payload.sid)) return ack({ ok: false, error: { code: 'not_found', message: `this runner does not drive ${payload.sid}` } });
    void socket.emitWithAck('turn-stop', { sid: payload.sid, status: 'aborted' }).then(() => ack({ ok: true }));
  });
  socket.on('machine-stop', (payload: MachineStopPayload, ack: (response: MachineActionAck) => void) => {
    keep('machine-stop', payload);
    const sid = payload.sid;
    if (sid === undefined) return ack({ ok: true });
    if (!peer.driving.has(sid)) return ack({ ok: false, error: { code: 'not_found', message: `this runner does not drive ${sid}` } });
    peer.driving.delete(sid);
    // the agent's process tree ended by the stop: its run ends cancelled
    void socket.emitWithAck('session-end', { sid, reason: 'cancelled', status: 'cancelled' }).then(() => ack({ ok: true }));
  });
  peer.registered = await socket.emitWithAck('machine-register', register);
  return peer;
}
