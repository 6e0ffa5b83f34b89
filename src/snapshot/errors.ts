/**
 * A stored snapshot (or health record, or keyword dictionary) that cannot be read back: truncated,
 * written by an unknown format version, or pointing at a dictionary that is gone. The decision it
 * carries: the stored baseline is unusable. `pollSeq` is the sequence number found in the record's
 * header when it could still be read, so a caller may overwrite the bad record with a fresh
 * baseline (`commit(target, next, err.pollSeq)`); when it is null, `delete(target)` and start over.
 */
export class SnapshotDecodeError extends Error {
  override readonly name = 'SnapshotDecodeError';
  readonly pollSeq: number | null;

  constructor(message: string, options: { pollSeq?: number | null; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.pollSeq = options.pollSeq ?? null;
  }
}

/**
 * A value the snapshot format cannot represent (a rank outside 1..2^32-1, a rule state that is not
 * JSON, an observation whose kind does not match its target). It points at a bug upstream, not at
 * bad luck: retrying will not help.
 */
export class SnapshotEncodeError extends Error {
  override readonly name = 'SnapshotEncodeError';
}
