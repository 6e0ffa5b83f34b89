/**
 * A real SMTP server (smtp-server) on 127.0.0.1 that parses every message it accepts (mailparser)
 * and records it before answering 250, so a resolved send is already in `messages`. Tests can
 * script refusals (the next N transactions at MAIL FROM, RCPT TO or DATA with a given code, or a
 * given recipient always), require a login, and take the server down and up again on its port.
 */
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';

export interface CapturedMessage {
  from: string;
  to: string[];
  raw: Buffer;
  mail: ParsedMail;
}

export type RefusalStage = 'mail' | 'rcpt' | 'data';

export interface SmtpCapture {
  readonly port: number;
  /** `smtp://127.0.0.1:PORT?ignoreTLS=true`: plain SMTP, no STARTTLS attempt. */
  readonly url: string;
  readonly messages: readonly CapturedMessage[];
  /** Connections accepted since the capture first started. */
  readonly connections: number;
  readonly running: boolean;
  /** The URL with credentials in it (percent-encoded). */
  urlWithAuth(user: string, pass: string, params?: string): string;
  /** Resolves once `n` messages were recorded in all; rejects at the deadline. */
  waitForMessages(n: number, timeoutMs?: number): Promise<CapturedMessage[]>;
  /** Refuses the next `count` transactions at `stage` with `code` (451 temporary, 550 permanent…). */
  refuseNext(count: number, stage: RefusalStage, code: number, text?: string): void;
  /** Refuses this recipient at RCPT TO, every time, with `code`. */
  refuseRecipient(address: string, code: number): void;
  /** Closes the listener and drops every open connection, so clients see the server as down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

interface Refusal {
  stage: RefusalStage;
  code: number;
  text: string;
  left: number;
}

function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

export async function startSmtpCapture(
  options: { auth?: { user: string; pass: string } } = {},
): Promise<SmtpCapture> {
  const messages: CapturedMessage[] = [];
  const events = new EventEmitter();
  const refusals: Refusal[] = [];
  const refusedRecipients = new Map<string, number>();
  // The refusal picked for the transaction now open on each connection.
  const current = new Map<string, Refusal | undefined>();
  let connections = 0;
  let port = 0;
  let server: SMTPServer | undefined;

  const auth = options.auth;
  const serverOptions: SMTPServerOptions = {
    authOptional: true,
    disabledCommands: auth === undefined ? ['STARTTLS', 'AUTH'] : ['STARTTLS'],
    allowInsecureAuth: auth !== undefined,
    logger: false,
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
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (mail) => {
            messages.push(record(session, raw, mail));
            events.emit('message');
            callback();
          },
          (error: unknown) => callback(smtpError(554, `unparseable message: ${String(error)}`)),
        );
      });
    },
  };

  function record(session: SMTPServerSession, raw: Buffer, mail: ParsedMail): CapturedMessage {
    const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
    return { from, to: session.envelope.rcptTo.map((r) => r.address), raw, mail };
  }

  async function start(): Promise<void> {
    if (server !== undefined) return;
    const next = new SMTPServer(serverOptions);
    next.on('error', () => {}); // a client dropping mid-session is expected when tests stop the server
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
    messages,
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
    waitForMessages(n, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (messages.length < n) return;
          clearTimeout(timer);
          events.off('message', check);
          resolve(messages.slice(0, n));
        };
        const timer = setTimeout(() => {
          events.off('message', check);
          reject(new Error(`expected ${n} messages within ${timeoutMs} ms, got ${messages.length}`));
        }, timeoutMs);
        events.on('message', check);
        check();
      });
    },
    refuseNext(count, stage, code, text = code >= 500 ? 'Refused for good' : 'Try again later') {
      if (count > 0) refusals.push({ stage, code, text, left: count });
    },
    refuseRecipient(address, code) {
      refusedRecipients.set(address.toLowerCase(), code);
    },
    stop,
    start,
  };
}
