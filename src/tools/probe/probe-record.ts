/**
 * Recorded answers on disk: one JSON file per request (`NN-endpoint.json`), headers and body, with
 * the key, credentials and personal data (email addresses) taken out before anything is written,
 * and checked again on the text that would be written. Read back by `probe --offline` and replay.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENDPOINT_NAMES, type EndpointName } from '../../api/tooling.ts';
import { redactDeep } from '../../util/redact.ts';
import type { PageFinding, RecordedAnswer } from './probe-analyse.ts';

/** Headers that carry credentials or session state: never recorded. */
const SECRET_HEADERS = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key)$/i;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const REDACTED_EMAIL = 'reader@redacted.invalid';

/** The secrets out (by value), then email addresses (personal data) replaced. */
function scrubbed<T>(value: T, secrets: readonly string[]): T {
  const text = JSON.stringify(redactDeep(value, secrets, { shapes: false }));
  return JSON.parse(text.replace(EMAIL, REDACTED_EMAIL)) as T;
}

/** The answer with credentials dropped and `secrets` (the API key) and email addresses replaced. */
export function redactAnswer(answer: RecordedAnswer, secrets: readonly string[]): RecordedAnswer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers))
    if (!SECRET_HEADERS.test(name)) headers[name] = value;
  return scrubbed({ ...answer, headers }, secrets);
}

/** What would leak if `text` were written: the key or an email address. */
export function leaksIn(text: string, secrets: readonly string[]): string[] {
  const found: string[] = [];
  if (secrets.some((s) => s !== '' && text.includes(s))) found.push('the API key');
  const emails = (text.match(EMAIL) ?? []).filter((e) => e !== REDACTED_EMAIL);
  if (emails.length > 0) found.push(`${emails.length} email address(es)`);
  if (/"authorization"\s*:/i.test(text)) found.push('an Authorization header');
  return found;
}

export function answerFileName(index: number, endpoint: EndpointName): string {
  return `${String(index + 1).padStart(2, '0')}-${endpoint}.json`;
}

/** Writes the answers under `dir` (created), redacted; refuses a file that would still leak. */
export function writeRecording(
  dir: string,
  answers: readonly RecordedAnswer[],
  secrets: readonly string[],
): string[] {
  mkdirSync(dir, { recursive: true });
  // A folder holds one probe's answers: those of an earlier probe would be read back with them.
  for (const name of readdirSync(dir))
    if (/^\d{2,}-[A-Za-z]+\.json$/.test(name)) rmSync(join(dir, name), { force: true });
  const files: string[] = [];
  answers.forEach((answer, index) => {
    const text = `${JSON.stringify(redactAnswer(answer, secrets), null, 2)}\n`;
    const leaks = leaksIn(text, secrets);
    const file = join(dir, answerFileName(index, answer.endpoint));
    if (leaks.length > 0) throw new Error(`${file}: not written: it would hold ${leaks.join(' and ')}`);
    writeFileSync(file, text, { mode: 0o600 });
    files.push(file);
  });
  return files;
}

export class RecordingError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'RecordingError';
  }
}

function checkAnswer(raw: unknown, file: string): RecordedAnswer {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new RecordingError(file, 'expected an object with endpoint, method, path, status, headers, body');
  const r = raw as Record<string, unknown>;
  if (typeof r.endpoint !== 'string' || !(ENDPOINT_NAMES as readonly string[]).includes(r.endpoint))
    throw new RecordingError(file, `"endpoint" must be one of ${ENDPOINT_NAMES.join(', ')}`);
  if (typeof r.method !== 'string' || !/^(GET|POST)$/.test(r.method))
    throw new RecordingError(file, '"method" must be GET or POST');
  if (typeof r.path !== 'string' || !r.path.startsWith('/'))
    throw new RecordingError(file, '"path" must be the request path with its query, starting with /');
  if (typeof r.status !== 'number' || !Number.isInteger(r.status) || r.status < 100 || r.status > 599)
    throw new RecordingError(file, '"status" must be an HTTP status (100..599)');
  const headers = r.headers ?? {};
  if (
    typeof headers !== 'object' ||
    headers === null ||
    Array.isArray(headers) ||
    Object.values(headers).some((v) => typeof v !== 'string')
  )
    throw new RecordingError(file, '"headers" must be an object of strings');
  if (!('body' in r)) throw new RecordingError(file, '"body" is missing (use null for an empty answer)');
  return {
    endpoint: r.endpoint as EndpointName,
    method: r.method,
    path: r.path,
    status: r.status,
    headers: headers as Record<string, string>,
    body: r.body,
    // What probe learnt of the parameters (names, formats, required extras): read back as written.
    ...(Array.isArray(r.params) ? { params: r.params as RecordedAnswer['params'] } : {}),
    ...(typeof r.fixed === 'object' && r.fixed !== null && !Array.isArray(r.fixed)
      ? { fixed: r.fixed as Record<string, string> }
      : {}),
    ...(isPageFinding(r.page) ? { page: r.page } : {}),
    ...(Array.isArray(r.evidence) && r.evidence.every((e) => typeof e === 'string')
      ? { evidence: r.evidence as string[] }
      : {}),
  };
}

function isPageFinding(value: unknown): value is PageFinding {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  // A cursor's finding (the second page's token, and whether it went alone) reads back too.
  return (
    typeof v.param === 'string' &&
    (v.alone === undefined || typeof v.alone === 'boolean') &&
    (((v.style === 'offset' || v.style === 'page') && typeof v.value === 'number') ||
      (v.style === 'cursor' && typeof v.value === 'string'))
  );
}

/** Reads every `*.json` of a recording folder, in name order; a bad file is a RecordingError naming it. */
export function readRecording(dir: string): RecordedAnswer[] {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch (error) {
    throw new RecordingError(
      dir,
      `cannot read the folder: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (names.length === 0) throw new RecordingError(dir, 'no recorded answers (*.json) in it');
  return names.map((name) => {
    const file = join(dir, name);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new RecordingError(
        file,
        `not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return checkAnswer(raw, file);
  });
}
