import { CLIENT_ERROR_CODES } from '../util/contract-codes.ts';

/** A simulator option or plan that cannot work; thrown by `startSimulator` and `parsePlan`. */
export class SimConfigError extends Error {
  override readonly name = 'SimConfigError';
}

export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * An answer of the contract's error shape; thrown by handlers, rendered by the server. Not the client's
 * ApiError (src/api/errors.ts): the one ApiError is what the client makes of such an answer.
 */
export class SimErrorAnswer extends Error {
  override readonly name = 'SimErrorAnswer';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: readonly ErrorDetail[],
  ) {
    super(message);
  }
}

export function badRequest(message: string): SimErrorAnswer {
  return new SimErrorAnswer(400, 'invalid_request', message);
}

export function notFound(message: string): SimErrorAnswer {
  return new SimErrorAnswer(404, 'not_found', message);
}

/** The contract's default error code for a status, for scripted status faults without a code. */
export function codeForStatus(status: number): string {
  // Gateways and an overloaded server say "come back later"; the contract calls that unavailable.
  if (status === 502 || status === 503 || status === 504) return 'unavailable';
  return CLIENT_ERROR_CODES[status] ?? 'internal';
}
