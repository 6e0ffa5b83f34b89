import { describe, expect, it } from 'vitest';
import { CsvFormatError, parseCsv } from '../../src/arc/csv.ts';
import { readersFromCsv } from '../../src/arc/readers.ts';

describe('parseCsv', () => {
  it('reads quoted fields with delimiters, doubled quotes and line breaks; CRLF and a BOM', () => {
    const text =
      '\uFEFFname,email\r\n"Doe, Jane","jane@example.com"\r\n"Say ""hi""",a@b.co\r\n"Two\nlines",c@d.co\r\n';
    const records = parseCsv(text);
    expect(records.map((r) => r.fields)).toEqual([
      ['name', 'email'],
      ['Doe, Jane', 'jane@example.com'],
      ['Say "hi"', 'a@b.co'],
      ['Two\nlines', 'c@d.co'],
    ]);
    // Rows count records (as a spreadsheet does); lines count the file's lines.
    expect(records.map((r) => [r.row, r.line])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
    ]);
    const after = parseCsv('a\n"x\ny"\nz\n');
    expect(after.map((r) => [r.row, r.line, r.fields[0]])).toEqual([
      [1, 1, 'a'],
      [2, 2, 'x\ny'],
      [3, 4, 'z'],
    ]);
  });

  it('takes ";" or tab as the delimiter when the header uses it, and keeps the last line without a break', () => {
    expect(parseCsv('email;name\nx@y.co;"A; B"').map((r) => r.fields)).toEqual([
      ['email', 'name'],
      ['x@y.co', 'A; B'],
    ]);
    expect(parseCsv('email\tname\nx@y.co\tAnn').map((r) => r.fields)).toEqual([
      ['email', 'name'],
      ['x@y.co', 'Ann'],
    ]);
  });

  it('refuses an unterminated quote with its line, and marks text after a closing quote', () => {
    expect(() => parseCsv('name,email\nAnn,a@b.co\n"Bob,b@c.co\n')).toThrow(CsvFormatError);
    try {
      parseCsv('name,email\nAnn,a@b.co\n"Bob,b@c.co\n');
    } catch (error) {
      expect((error as CsvFormatError).line).toBe(3);
    }
    const [, broken] = parseCsv('name,email\n"Ann"x,a@b.co\n');
    expect(broken?.malformed).toContain('after a closing quote');
  });
});

describe('readersFromCsv', () => {
  it('finds email and name in any order and case, ignores other columns, skips blank rows', () => {
    const file = readersFromCsv('Note, Email ,NAME\nfan,ann@example.com,Ann\n\n,,\nx,bo@example.com,Bo\n');
    expect(file.readers).toEqual([
      { row: 2, email: 'ann@example.com', name: 'Ann' },
      { row: 5, email: 'bo@example.com', name: 'Bo' },
    ]);
    expect(file.invalid).toEqual([]);
  });

  it('reports bad emails, missing names, duplicates (any case) and broken rows, and keeps the first', () => {
    const file = readersFromCsv(
      [
        'email,name',
        'ann@example.com,Ann',
        'not-an-email,Bad',
        'nobody@example.com,',
        ',No Email',
        'ANN@example.com,Ann again',
        `long@example.com,${'x'.repeat(201)}`,
        '"bo@example.com"junk,Bo',
      ].join('\n'),
    );
    expect(file.readers.map((r) => r.email)).toEqual(['ann@example.com']);
    expect(file.invalid).toEqual([
      { row: 3, email: 'not-an-email', reason: 'not an email address' },
      { row: 4, email: 'nobody@example.com', reason: 'missing name' },
      { row: 5, email: '', reason: 'missing email' },
      { row: 6, email: 'ANN@example.com', reason: 'duplicate of row 2' },
      { row: 7, email: 'long@example.com', reason: 'name longer than 200 characters' },
      { row: 8, email: 'bo@example.comjunk', reason: expect.stringContaining('malformed CSV') },
    ]);
  });

  it('refuses a file without the two columns, naming what it found', () => {
    expect(() => readersFromCsv('contact,who\na@b.co,A\n')).toThrow(
      'the header row needs an email and a name column; found "contact", "who" (name them with --column',
    );
    expect(() => readersFromCsv('Email Address,notes\na@b.co,A\n')).toThrow(
      'the header row needs a name column; found "Email Address", "notes"',
    );
    expect(() => readersFromCsv('')).toThrow(CsvFormatError);
  });

  it('understands the titles mailing tools export: Mailchimp, "E-mail", "Full Name"', () => {
    const mailchimp = readersFromCsv(
      'Email Address,First Name,Last Name\nann@example.com,Ann,Lee\nbo@x.co,Bo,\n',
    );
    expect(mailchimp.readers.map((r) => [r.email, r.name])).toEqual([
      ['ann@example.com', 'Ann Lee'],
      ['bo@x.co', 'Bo'],
    ]);
    const other = readersFromCsv('Full Name;E-mail\nCy Young;cy@example.com\n');
    expect(other.readers.map((r) => [r.email, r.name])).toEqual([['cy@example.com', 'Cy Young']]);
    // "name" itself wins over "first name", and then no last name is added.
    const both = readersFromCsv('first name,name,last name,email\nDee,Dee Dee,X,dee@example.com\n');
    expect(both.readers[0]?.name).toBe('Dee Dee');
  });

  it('takes the columns the caller names, and refuses a name that is not in the header', () => {
    const file = readersFromCsv('Contact,Reader,email\nann@example.com,Ann,other@example.com\n', {
      email: 'Contact',
      name: 'Reader',
    });
    expect(file.readers.map((r) => [r.email, r.name])).toEqual([['ann@example.com', 'Ann']]);
    expect(() => readersFromCsv('Contact,Reader\n', { email: 'Mail' })).toThrow(
      '--column email="Mail": no such column; found "Contact", "Reader"',
    );
  });
});
