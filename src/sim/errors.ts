/** A simulator option or plan that cannot work; thrown by `startSimulator` and `parsePlan`. */
export class SimConfigError extends Error {
  override readonly name = 'SimConfigError';
}

export interface ErrorDetail {
  path: string;
  message: string;
}

/** An answer of the contract's error shape; thrown by handlers, rendered by the server. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: readonly ErrorDetail[],
  ) {
    super(message);
  }
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'invalid_request', message);
}

export function notFound(message: string): ApiError {
  return new ApiError(404, 'not_found', message);
}

/** The contract's default error code for a status, for scripted status faults without a code. */
export function codeForStatus(status: number): string {
  const codes: Record<number, string> = {
    400: 'invalid_request',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    409: 'conflict',
    422: 'validation_failed',
    429: 'rate_limited',
    502: 'unavailable',
    503: 'unavailable',
    504: 'unavailable',
  };
  return codes[status] ?? 'internal';
}
