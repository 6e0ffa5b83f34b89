/**
 * The contract's error code for each 4xx status it names. The API client reads an answer without a
 * code by it and the simulator writes its scripted faults with it, so both speak one list.
 */
export const CLIENT_ERROR_CODES: Readonly<Record<number, string>> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  422: 'validation_failed',
  429: 'rate_limited',
};
