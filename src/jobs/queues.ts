/** Queue names (BullMQ forbids ":" in them); the prefix from the config goes in front. */
export const POLL_QUEUE = 'poll';
export const DELIVER_QUEUE = 'deliver';
export const DIGEST_QUEUE = 'digest';
