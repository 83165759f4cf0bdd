import { ERROR_CODES, type ErrorCode } from '../../shared/errors.js';
import { MACHINE_ERRORS, type MachineAnyErrorCode, type MachineErrorCode } from '../../shared/protocol/machines.js';

/** A machine action refused (spec section 14): its code, its HTTP status, and what to do in the message. */
export class MachineRefused extends Error {
  constructor(
    readonly code: MachineAnyErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'MachineRefused';
  }
  get status(): number {
    return this.code in MACHINE_ERRORS ? MACHINE_ERRORS[this.code as MachineErrorCode].status : ERROR_CODES[this.code as ErrorCode].status;
  }
}

/** The machine's runner disconnected while the hub waited for its answer: what it was asked may or may not have happened. */
export class MachineGone extends Error {
  constructor(readonly machineId: string) {
    super(`machine ${machineId} disconnected before it answered`);
    this.name = 'MachineGone';
  }
}
