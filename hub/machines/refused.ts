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
