import type { BookObservation, CompTitle } from '../model/observation.ts';
import type { ByteReader, ByteWriter } from './bytes.ts';
import { SnapshotDecodeError } from './errors.ts';

/**
 * Comp titles and sentiment shares come after the history, as an optional tail: a book snapshot
 * written before they existed ends at the history and still reads (without them).
 *   u8 1 (tail version), uvarint comps + 1 (0 = none listed), per comp: str asin, str title, num bsr,
 *   u8 0 | u8 1 + num positive, num neutral, num negative
 */
const BOOK_TAIL_VERSION = 1;

export function writeBookExtras(w: ByteWriter, o: BookObservation): void {
  if (o.compTitles === undefined && o.sentiment === undefined) return;
  w.u8(BOOK_TAIL_VERSION);
  if (o.compTitles === undefined) w.uvarint(0);
  else {
    w.uvarint(o.compTitles.length + 1);
    for (const c of o.compTitles) {
      w.str(c.asin);
      w.str(c.title);
      w.num(c.bsr);
    }
  }
  if (o.sentiment === undefined) w.u8(0);
  else {
    w.u8(1);
    w.num(o.sentiment.positive);
    w.num(o.sentiment.neutral);
    w.num(o.sentiment.negative);
  }
}

export function readBookExtras(r: ByteReader, book: BookObservation): void {
  if (r.remaining === 0) return;
  const version = r.u8();
  if (version !== BOOK_TAIL_VERSION) throw new SnapshotDecodeError(`unknown book tail version ${version}`);
  const listed = r.uvarint();
  if (listed > 0) {
    const n = listed - 1;
    if (n * 3 > r.remaining) throw new SnapshotDecodeError(`comp count ${n} exceeds the remaining bytes`);
    const comps: CompTitle[] = [];
    for (let i = 0; i < n; i++) comps.push({ asin: r.str(), title: r.str(), bsr: r.num() });
    book.compTitles = comps;
  }
  const flag = r.u8();
  if (flag === 1) {
    book.sentiment = {
      positive: r.reqNum('positive'),
      neutral: r.reqNum('neutral'),
      negative: r.reqNum('negative'),
    };
  } else if (flag !== 0) throw new SnapshotDecodeError(`bad sentiment flag ${flag}`);
}
