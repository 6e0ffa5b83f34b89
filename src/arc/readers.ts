/**
 * The readers of an ARC invite file: a header row naming the email and name columns (any order,
 * other columns ignored; the names mailing tools export are understood, or the caller names the
 * columns), then one reader a row. Rows that cannot be sent (a bad email, no name, a
 * reader listed twice) are reported with their reason and never reach the API.
 */
import { z } from 'zod';
import { CsvFormatError, parseCsv } from './csv.ts';

export interface Reader {
  /** Row of the file (the header is row 1). */
  row: number;
  email: string;
  name: string;
}

export interface InvalidRow {
  row: number;
  /** As written in the file (trimmed); '' when the row had none. */
  email: string;
  reason: string;
}

export interface ReaderFile {
  readers: Reader[];
  invalid: InvalidRow[];
}

/** The API's limit on a reader's name. */
export const MAX_NAME_CHARS = 200;
/**
 * The contract names no email rule; this is the simulator's. Refusing a row here is better than
 * having the API refuse a whole batch of 100 for it (a 422).
 */
const emailSchema = z.email();

/** Header titles compared without case, spaces or punctuation: "E-mail Address" is "emailaddress". */
function normal(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * Titles that mean the email and the name, best first, as spreadsheets and mailing tools export
 * them (Mailchimp: "Email Address", "First Name", "Last Name"). A first name column takes the
 * last name column beside it, if there is one.
 */
const EMAIL_TITLES = ['email', 'emailaddress', 'mail', 'emailaddr'];
const NAME_TITLES = ['name', 'fullname', 'readername', 'displayname', 'firstname', 'fname', 'givenname'];
const LAST_NAME_TITLES = ['lastname', 'lname', 'surname', 'familyname'];

/** Columns named by the caller (`--column email="Email Address"`), overriding the usual titles. */
export interface ColumnNames {
  email?: string;
  name?: string;
}

function columnOf(header: readonly string[], titles: readonly string[]): number {
  for (const title of titles) {
    const at = header.findIndex((found) => normal(found) === title);
    if (at >= 0) return at;
  }
  return -1;
}

interface Columns {
  email: number;
  name: number;
  lastName: number;
}

function findColumns(header: readonly string[], given: ColumnNames): Columns {
  const found = header.map((title) => `"${title.trim()}"`).join(', ');
  const named = (role: 'email' | 'name', titles: readonly string[]): number => {
    const title = given[role];
    if (title === undefined) return columnOf(header, titles);
    const at = header.findIndex((candidate) => candidate.trim() === title.trim());
    if (at < 0) throw new CsvFormatError(`--column ${role}="${title}": no such column; found ${found}`, 1);
    return at;
  };
  const email = named('email', EMAIL_TITLES);
  const name = named('name', NAME_TITLES);
  if (email < 0 || name < 0) {
    const missing = [email < 0 ? 'an email' : '', name < 0 ? 'a name' : ''].filter(Boolean).join(' and ');
    throw new CsvFormatError(
      `the header row needs ${missing} column; found ${found} (name them with --column email="…" --column name="…")`,
      1,
    );
  }
  const first = ['firstname', 'fname', 'givenname'].includes(normal(header[name] ?? ''));
  return { email, name, lastName: first ? columnOf(header, LAST_NAME_TITLES) : -1 };
}

export function readersFromCsv(text: string, columns: ColumnNames = {}): ReaderFile {
  const records = parseCsv(text);
  const [head, ...rows] = records;
  if (head === undefined)
    throw new CsvFormatError('the file is empty: expected a header row with "email" and "name"', 1);
  const {
    email: emailColumn,
    name: nameColumn,
    lastName: lastNameColumn,
  } = findColumns(head.fields, columns);
  const result: ReaderFile = { readers: [], invalid: [] };
  const firstRowOf = new Map<string, number>();
  for (const record of rows) {
    // Spreadsheets leave blank lines and rows of empty cells at the end: nothing to report.
    if (record.fields.every((value) => value.trim() === '')) continue;
    const email = (record.fields[emailColumn] ?? '').trim();
    const lastName = lastNameColumn < 0 ? '' : (record.fields[lastNameColumn] ?? '').trim();
    const name = [(record.fields[nameColumn] ?? '').trim(), lastName].filter((part) => part !== '').join(' ');
    const reject = (reason: string) => result.invalid.push({ row: record.row, email, reason });
    if (record.malformed !== undefined) reject(`malformed CSV: ${record.malformed}`);
    else if (email === '') reject('missing email');
    else if (!emailSchema.safeParse(email).success) reject('not an email address');
    else if (name === '') reject('missing name');
    else if (name.length > MAX_NAME_CHARS) reject(`name longer than ${MAX_NAME_CHARS} characters`);
    else {
      // The API treats addresses case-insensitively: Ann@x and ann@x are one reader.
      const identity = email.toLowerCase();
      const first = firstRowOf.get(identity);
      if (first !== undefined) reject(`duplicate of row ${first}`);
      else {
        firstRowOf.set(identity, record.row);
        result.readers.push({ row: record.row, email, name });
      }
    }
  }
  return result;
}
