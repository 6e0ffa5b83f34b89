/**
 * What the simulator answered, for tests and benchmarks: every API request (control requests are
 * not logged), in a ring buffer. It records the workspace, never the key.
 */
export interface RequestLogEntry {
  seq: number;
  sim_time: string;
  real_time: string;
  method: string;
  path: string;
  /** The raw query string without '?', '' when none. */
  query: string;
  /** null when the connection was reset instead of answered. */
  status: number | null;
  workspace: string | null;
  error_code: string | null;
  /** The injected fault's kind, if one was applied. */
  fault: string | null;
  /** Whether the request counted against the workspace's minute and month limits. */
  counted: boolean;
}

export class RequestLog {
  private readonly entries: RequestLogEntry[] = [];
  private start = 0;
  private lastSeq = 0;

  constructor(private readonly capacity: number) {}

  nextSeq(): number {
    this.lastSeq += 1;
    return this.lastSeq;
  }

  push(entry: RequestLogEntry): void {
    if (this.capacity <= 0) return;
    if (this.entries.length < this.capacity) {
      this.entries.push(entry);
      return;
    }
    this.entries[this.start] = entry;
    this.start = (this.start + 1) % this.capacity;
  }

  /** Entries with a sequence number above `sinceSeq`, in sequence order. */
  since(sinceSeq: number): RequestLogEntry[] {
    const ordered = [...this.entries.slice(this.start), ...this.entries.slice(0, this.start)];
    return ordered.filter((entry) => entry.seq > sinceSeq).sort((a, b) => a.seq - b.seq);
  }

  clear(): void {
    this.entries.length = 0;
    this.start = 0;
  }
}
