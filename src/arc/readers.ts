/**
 * The readers of an ARC invite file: a header row naming `email` and `name` (any order, other
 * columns ignored), then one reader a row. Rows that cannot be sent (a bad email, no name, a
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

function columnOf(header: readonly string[], name: string): number {
  return header.findIndex((title) => title.trim().toLowerCase() === name);
}

export function readersFromCsv(text: string): ReaderFile {
  const records = parseCsv(text);
  const [head, ...rows] = records;
  if (head === undefined)
    throw new CsvFormatError('the file is empty: expected a header row with "email" and "name"', 1);
  const emailColumn = columnOf(head.fields, 'email');
  const nameColumn = columnOf(head.fields, 'name');
  if (emailColumn < 0 || nameColumn < 0) {
    const found = head.fields.map((title) => `"${title.trim()}"`).join(', ');
    throw new CsvFormatError(`the header row needs an "email" and a "name" column; found ${found}`, 1);
  }
  const result: ReaderFile = { readers: [], invalid: [] };
  const firstRowOf = new Map<string, number>();
  for (const record of rows) {
    // Spreadsheets leave blank lines and rows of empty cells at the end: nothing to report.
    if (record.fields.every((value) => value.trim() === '')) continue;
    const email = (record.fields[emailColumn] ?? '').trim();
    const name = (record.fields[nameColumn] ?? '').trim();
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
