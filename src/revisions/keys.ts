/**
 * The revision store's keys. They belong to the whole deployment, so they live under the home
 * shard's prefix (one hash tag: the switch script touches them together, in one Cluster slot).
 * No key holds free text, so none goes through `keyPart`; the file a revision came from is a hash
 * field, not a key.
 */
export interface RevisionKeys {
  /** The number of the revision in force ("0" or absent: none yet). */
  readonly current: string;
  /** Hash: revision number → its meta (JSON). */
  readonly metas: string;
  /** Hash: revision number → its document (JSON, secrets sealed or `${VAR}`). */
  readonly documents: string;
  /** Hash: config file path → sha256 of the text last stored from it. */
  readonly files: string;
  /** Pub/sub channel: the new revision's number, published by the switch. */
  readonly switched: string;
  /** Hash: process (`host:pid`) → the revision it runs and whether the newest failed there (JSON). */
  readonly processes: string;
}

export function revisionKeys(home: string): RevisionKeys {
  return {
    current: `${home}:config:current`,
    metas: `${home}:config:metas`,
    documents: `${home}:config:documents`,
    files: `${home}:config:files`,
    switched: `${home}:config:switched`,
    processes: `${home}:config:processes`,
  };
}
