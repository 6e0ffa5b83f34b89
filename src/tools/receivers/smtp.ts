/**
 * A local SMTP server (smtp-server on 127.0.0.1), shared by the tests, the demo and the benchmarks.
 * It records every message it accepts before answering 250, so a resolved send is already in
 * `messages`. It can parse each message (mailparser), run a hook before accepting (the demo writes
 * files there), script refusals (the next N transactions at MAIL FROM, RCPT TO or DATA, or one
 * recipient always), require a login, and go down and come up again on its port.
 *
 * smtp-server and mailparser are dev dependencies: import this module only from tests, benchmarks
 * or dynamically (the demo), never from anything `run` reaches.
 */
import type { AddressInfo } from 'node:net';
import type { ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { Arrivals, DEFAULT_WAIT_MS } from './arrivals.ts';

export interface ReceivedMail<Mail = ParsedMail> {
  /** The receiver's clock (`Date.now()` unless `clock` was given) when the message was accepted. */
  receivedAt: number;
  from: string;
  to: string[];
  raw: Buffer;
  /** The message parsed by mailparser; undefined when the receiver was started with `parse: false`. */
  mail: Mail;
}

export type RefusalStage = 'mail' | 'rcpt' | 'data';

export interface SmtpReceiverOptions {
  /** Accept AUTH with exactly these credentials (over plain SMTP); no AUTH at all without. */
  auth?: { user: string; pass: string };
  clock?: () => number;
  /**
   * Runs before the 250 answer; a throw answers 451 with its message. The demo stores the message
   * here, so once a send has resolved its files exist.
   */
  onMessage?: (message: ReceivedMail<ParsedMail | undefined>) => Promise<void> | void;
}

export interface SmtpReceiver<Mail = ParsedMail> {
  readonly port: number;
  /** `smtp://127.0.0.1:PORT?ignoreTLS=true`: plain SMTP, no STARTTLS attempt. */
  readonly url: string;
  readonly messages: readonly ReceivedMail<Mail>[];
  /** Connections accepted since the receiver first started. */
  readonly connections: number;
  readonly running: boolean;
  /** The URL with credentials in it (percent-encoded). */
  urlWithAuth(user: string, pass: string, params?: string): string;
  /** Resolves once `n` messages were recorded in all; rejects at the deadline. */
  waitForMessages(n: number, timeoutMs?: number): Promise<ReceivedMail<Mail>[]>;
  /** Refuses the next `count` transactions at `stage` with `code` (451 temporary, 550 permanent…). */
  refuseNext(count: number, stage: RefusalStage, code: number, text?: string): void;
  /** Refuses this recipient at RCPT TO, every time, with `code`. */
  refuseRecipient(address: string, code: number): void;
  /** Closes the listener and drops every open connection, so clients see the server as down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** The same as `stop`, for callers that only ever close it. */
  close(): Promise<void>;
}

interface Refusal {
  stage: RefusalStage;
  code: number;
  text: string;
  left: number;
}

/** Alert emails are small; the digest with its charts is the biggest, well under this. */
const MAX_MESSAGE_BYTES = 25 * 1024 * 1024;

function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

type Parser = (raw: Buffer) => Promise<ParsedMail>;

/** mailparser is loaded only when parsing is asked for: the benchmarks measure without it. */
async function loadParser(parse: boolean): Promise<Parser | undefined> {
  if (!parse) return undefined;
  const { simpleParser } = await import('mailparser');
  return (raw) => simpleParser(raw);
}

/** Messages parsed with mailparser (the tests) … */
export function startSmtpReceiver(options?: SmtpReceiverOptions & { parse?: true }): Promise<SmtpReceiver>;
/** … or kept raw (the benchmarks parse after measuring). */
export function startSmtpReceiver(
  options: SmtpReceiverOptions & { parse: false },
): Promise<SmtpReceiver<undefined>>;
export async function startSmtpReceiver(
  options: SmtpReceiverOptions & { parse?: boolean } = {},
): Promise<SmtpReceiver<ParsedMail | undefined>> {
  const { auth, clock = Date.now, onMessage } = options;
  const parser = await loadParser(options.parse ?? true);
  const arrivals = new Arrivals<ReceivedMail<ParsedMail | undefined>>();
  const refusals: Refusal[] = [];
  const refusedRecipients = new Map<string, number>();
  // The refusal picked for the transaction now open on each connection.
  const current = new Map<string, Refusal | undefined>();
  let connections = 0;
  let port = 0;
  let server: SMTPServer | undefined;

  const accept = async (session: SMTPServerSession, raw: Buffer): Promise<void> => {
    let mail: ParsedMail | undefined;
    try {
      mail = await parser?.(raw);
    } catch (error) {
      throw smtpError(554, `unparseable message: ${String(error)}`);
    }
    const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
    const to = session.envelope.rcptTo.map((r) => r.address);
    const message = { receivedAt: clock(), from, to, raw, mail };
    try {
      await onMessage?.(message);
    } catch (error) {
      throw smtpError(451, `the receiver could not store the message: ${String(error)}`);
    }
    arrivals.push(message);
  };

  const serverOptions: SMTPServerOptions = {
    authOptional: true,
    disabledCommands: auth === undefined ? ['STARTTLS', 'AUTH'] : ['STARTTLS'],
    allowInsecureAuth: auth !== undefined,
    logger: false,
    size: MAX_MESSAGE_BYTES,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onAuth(login, _session, callback) {
      if (auth !== undefined && login.username === auth.user && login.password === auth.pass) {
        callback(null, { user: login.username });
      } else callback(smtpError(535, 'Authentication credentials invalid'));
    },
    onMailFrom(_address, session, callback) {
      const next = refusals[0];
      let refusal: Refusal | undefined;
      if (next !== undefined) {
        refusal = next;
        next.left -= 1;
        if (next.left <= 0) refusals.shift();
      }
      current.set(session.id, refusal);
      if (refusal?.stage === 'mail') return callback(smtpError(refusal.code, refusal.text));
      callback();
    },
    onRcptTo(address, session, callback) {
      const refusal = current.get(session.id);
      if (refusal?.stage === 'rcpt') return callback(smtpError(refusal.code, refusal.text));
      const code = refusedRecipients.get(address.address.toLowerCase());
      if (code !== undefined) return callback(smtpError(code, `Recipient <${address.address}> refused`));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const refusal = current.get(session.id);
        if (refusal?.stage === 'data') return callback(smtpError(refusal.code, refusal.text));
        accept(session, Buffer.concat(chunks)).then(() => callback(), callback);
      });
    },
  };

  async function start(): Promise<void> {
    if (server !== undefined) return;
    const next = new SMTPServer(serverOptions);
    next.on('error', () => {}); // a client dropping mid-session is expected when the server stops
    await new Promise<void>((resolve, reject) => {
      next.server.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        next.server.off('error', reject);
        resolve();
      });
    });
    port = (next.server.address() as AddressInfo).port;
    server = next;
  }

  async function stop(): Promise<void> {
    const closing = server;
    if (closing === undefined) return;
    server = undefined;
    await new Promise<void>((resolve) => {
      closing.close(() => resolve());
      for (const connection of closing.connections) connection.close();
    });
  }

  await start();

  return {
    get port() {
      return port;
    },
    get url() {
      return `smtp://127.0.0.1:${port}?ignoreTLS=true`;
    },
    messages: arrivals.items,
    get connections() {
      return connections;
    },
    get running() {
      return server !== undefined;
    },
    urlWithAuth(user, pass, params = '') {
      const extra = params === '' ? '' : `&${params}`;
      return `smtp://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${port}?ignoreTLS=true${extra}`;
    },
    waitForMessages: (n, timeoutMs = DEFAULT_WAIT_MS) => arrivals.waitFor(n, timeoutMs),
    refuseNext(count, stage, code, text = code >= 500 ? 'Refused for good' : 'Try again later') {
      if (count > 0) refusals.push({ stage, code, text, left: count });
    },
    refuseRecipient(address, code) {
      refusedRecipients.set(address.toLowerCase(), code);
    },
    stop,
    start,
    close: stop,
  };
}
