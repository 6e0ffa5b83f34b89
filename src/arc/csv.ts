/**
 * A CSV reader for the files people export from spreadsheets and mailing tools (RFC 4180 and its
 * usual variations): quoted fields holding delimiters, line breaks and doubled quotes, a UTF-8 BOM,
 * CRLF or LF line ends, and `;` or tab as the delimiter when the header uses it.
 */

export class CsvFormatError extends Error {
  override readonly name = 'CsvFormatError';
  constructor(
    message: string,
    /** 1-based line of the file where the problem starts. */
    readonly line: number,
  ) {
    super(message);
  }
}

export interface CsvRecord {
  /** 1-based number of the record, header included: row 1 is the header, as spreadsheets count. */
  row: number;
  /** 1-based line of the file where the record starts (differs from `row` after quoted line breaks). */
  line: number;
  fields: string[];
  /** Set when the record is readable but broken (text after a closing quote); its fields are a guess. */
  malformed?: string;
}

const DELIMITERS = [',', ';', '\t'] as const;

/** The delimiter of the header line: whichever of `,` `;` tab it holds most of, outside quotes. */
function sniffDelimiter(text: string): string {
  let inQuotes = false;
  const counts = new Map<string, number>();
  for (const char of text) {
    if (char === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (char === '\n' || char === '\r')) break;
    else if (!inQuotes && (DELIMITERS as readonly string[]).includes(char)) {
      counts.set(char, (counts.get(char) ?? 0) + 1);
    }
  }
  let best = ',';
  for (const delimiter of DELIMITERS) {
    if ((counts.get(delimiter) ?? 0) > (counts.get(best) ?? 0)) best = delimiter;
  }
  return best;
}

/**
 * Every record of the text, in order. Blank lines are records with one empty field (callers
 * decide to skip them, and row numbers still count them). An unterminated quote is an error of the
 * whole file: everything after it would be read as one field.
 */
export function parseCsv(input: string): CsvRecord[] {
  const text = input.startsWith('\uFEFF') ? input.slice(1) : input;
  const delimiter = sniffDelimiter(text);
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let malformed: string | undefined;
  let i = 0;

  const endField = () => {
    fields.push(field);
    field = '';
  };
  const endRecord = () => {
    endField();
    const record: CsvRecord = { row: records.length + 1, line: recordLine, fields };
    if (malformed !== undefined) record.malformed = malformed;
    records.push(record);
    fields = [];
    malformed = undefined;
    recordLine = line;
  };

  while (i < text.length) {
    const char = text[i] as string;
    // A quoted field (spaces before its quote are tolerated): runs to the next quote not doubled.
    if (char === '"' && field.trim() === '') {
      const openedAt = line;
      field = '';
      i += 1;
      for (;;) {
        if (i >= text.length)
          throw new CsvFormatError(`a quoted field opened on line ${openedAt} is never closed`, openedAt);
        const inner = text[i] as string;
        if (inner === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        if (inner === '\n') line += 1;
        field += inner;
        i += 1;
      }
      // Anything but a delimiter or a line end after the closing quote breaks the record.
      const after = text[i];
      if (after !== undefined && after !== delimiter && after !== '\n' && after !== '\r') {
        malformed ??= `text after a closing quote on line ${line}`;
      }
      continue;
    }
    if (char === delimiter) {
      endField();
      i += 1;
    } else if (char === '\r' || char === '\n') {
      i += char === '\r' && text[i + 1] === '\n' ? 2 : 1;
      line += 1;
      endRecord();
    } else {
      field += char;
      i += 1;
    }
  }
  // The last record, unless the text ended with a line break (or was empty).
  if (field !== '' || fields.length > 0) endRecord();
  return records;
}
