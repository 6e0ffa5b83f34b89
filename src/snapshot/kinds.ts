import type {
  BookObservation,
  RankPoint,
  ReviewDetail,
  ReviewPlatform,
  ReviewsObservation,
  SalesDay,
  SalesObservation,
} from '../model/observation.ts';
import { readBookExtras, writeBookExtras } from './book-tail.ts';
import { type ByteReader, type ByteWriter, isUint, isZigzagSafe, unzigzag, zigzag } from './bytes.ts';
import { SnapshotDecodeError, SnapshotEncodeError } from './errors.ts';

/**
 * Body codecs of the small observation kinds (the header — version and kind — is written by
 * `encoding.ts`). Keywords live in `encoding.ts` because of their shared dictionary.
 */

export function writeOptStr(w: ByteWriter, value: string | null): void {
  if (value === null) {
    w.u8(0);
  } else {
    w.u8(1);
    w.str(value);
  }
}

export function readOptStr(r: ByteReader): string | null {
  const flag = r.u8();
  if (flag === 0) return null;
  if (flag === 1) return r.str();
  throw new SnapshotDecodeError(`bad optional-string flag ${flag}`);
}

/** Repeated strings (asin, marketplace, currency, dates) are written once and referenced by index. */
class StringTable {
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();

  ref(value: string): number {
    let i = this.index.get(value);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(value);
      this.index.set(value, i);
    }
    return i;
  }

  write(w: ByteWriter): void {
    w.uvarint(this.strings.length);
    for (const s of this.strings) w.str(s);
  }
}

function readTable(r: ByteReader): (ref: number) => string {
  const n = r.count(1);
  const strings: string[] = [];
  for (let i = 0; i < n; i++) strings.push(r.str());
  return (ref) => {
    const s = strings[ref];
    if (s === undefined) throw new SnapshotDecodeError(`string reference ${ref} out of range`);
    return s;
  };
}

// ---- book ---------------------------------------------------------------------------------------

const HISTORY_PACKED = 1;
const HISTORY_GENERIC = 2;

/**
 * Hourly points are regular, so each timestamp is stored as the change of the step (0 → 1 byte),
 * and each rank as its change from the last known rank (0 = null). Anything irregular enough to
 * break those assumptions (fractional or negative values) falls back to tagged numbers.
 */
function canPackHistory(points: readonly RankPoint[]): boolean {
  let prevAt = 0;
  let prevStep = 0;
  let prevRank = 0;
  for (const p of points) {
    if (!isUint(p.at) || (p.rank !== null && !isUint(p.rank))) return false;
    const step = p.at - prevAt;
    if (!isZigzagSafe(step - prevStep)) return false;
    if (p.rank !== null && !isZigzagSafe(p.rank - prevRank)) return false;
    prevStep = step;
    prevAt = p.at;
    if (p.rank !== null) prevRank = p.rank;
  }
  return true;
}

function writeHistory(w: ByteWriter, points: readonly RankPoint[]): void {
  if (!canPackHistory(points)) {
    w.u8(HISTORY_GENERIC);
    w.uvarint(points.length);
    for (const p of points) {
      w.num(p.at);
      w.num(p.rank);
    }
    return;
  }
  w.u8(HISTORY_PACKED);
  w.uvarint(points.length);
  let prevAt = 0;
  let prevStep = 0;
  for (const p of points) {
    const step = p.at - prevAt;
    w.uvarint(zigzag(step - prevStep));
    prevStep = step;
    prevAt = p.at;
  }
  let prevRank = 0;
  for (const p of points) {
    if (p.rank === null) {
      w.uvarint(0);
    } else {
      w.uvarint(zigzag(p.rank - prevRank) + 1);
      prevRank = p.rank;
    }
  }
}

function readHistory(r: ByteReader): RankPoint[] {
  const mode = r.u8();
  const points: RankPoint[] = [];
  if (mode === HISTORY_GENERIC) {
    const n = r.count(2);
    for (let i = 0; i < n; i++) points.push({ at: r.reqNum('history point time'), rank: r.num() });
    return points;
  }
  if (mode !== HISTORY_PACKED) throw new SnapshotDecodeError(`unknown history mode ${mode}`);
  const n = r.count(2);
  let at = 0;
  let step = 0;
  for (let i = 0; i < n; i++) {
    step += unzigzag(r.uvarint());
    at += step;
    points.push({ at, rank: null });
  }
  let rank = 0;
  for (const p of points) {
    const v = r.uvarint();
    if (v !== 0) {
      rank += unzigzag(v - 1);
      p.rank = rank;
    }
  }
  return points;
}

export function writeBook(w: ByteWriter, o: BookObservation): void {
  w.num(o.observedAt);
  w.str(o.asin);
  w.str(o.marketplace);
  w.str(o.title);
  w.str(o.author);
  w.num(o.bsr);
  writeOptStr(w, o.bsrCategory);
  w.num(o.reviewCount);
  w.num(o.averageRating);
  writeHistory(w, o.bsrHistory);
  writeBookExtras(w, o);
}

export function readBook(r: ByteReader): BookObservation {
  const observedAt = r.reqNum('observedAt');
  const asin = r.str();
  const marketplace = r.str();
  const title = r.str();
  const author = r.str();
  const bsr = r.num();
  const bsrCategory = readOptStr(r);
  const reviewCount = r.num();
  const averageRating = r.num();
  const bsrHistory = readHistory(r);
  const book: BookObservation = {
    kind: 'book',
    observedAt,
    asin,
    marketplace,
    title,
    author,
    bsr,
    bsrCategory,
    bsrHistory,
    reviewCount,
    averageRating,
  };
  readBookExtras(r, book);
  return book;
}

// ---- reviews ------------------------------------------------------------------------------------

const PLATFORMS: readonly ReviewPlatform[] = ['amazon', 'audible', 'goodreads'];

/**
 * Only the summary of each review is kept: the rules compare the previous snapshot by id, rating
 * and date, never by text, and not storing public free text keeps snapshots small and inert.
 * Decoded reviews therefore come back with `title: null, body: '', reviewer: '', url: null`.
 */
export function writeReviews(w: ByteWriter, o: ReviewsObservation): void {
  w.num(o.observedAt);
  w.str(o.campaignId);
  const table = new StringTable();
  const asinRefs = o.reviews.map((rv) => table.ref(rv.asin));
  table.write(w);
  w.uvarint(o.reviews.length);
  o.reviews.forEach((rv, i) => {
    const platform = PLATFORMS.indexOf(rv.platform);
    if (platform < 0) throw new SnapshotEncodeError(`unknown review platform ${JSON.stringify(rv.platform)}`);
    w.str(rv.reviewId);
    w.uvarint(asinRefs[i]!);
    w.u8(platform);
    w.num(rv.rating);
    w.num(rv.publishedAt);
  });
}

export function readReviews(r: ByteReader): ReviewsObservation {
  const observedAt = r.reqNum('observedAt');
  const campaignId = r.str();
  const str = readTable(r);
  const n = r.count(5);
  const reviews: ReviewDetail[] = [];
  for (let i = 0; i < n; i++) {
    const reviewId = r.str();
    const asin = str(r.uvarint());
    const code = r.u8();
    const platform = PLATFORMS[code];
    if (platform === undefined) throw new SnapshotDecodeError(`unknown review platform code ${code}`);
    const rating = r.reqNum('rating');
    const publishedAt = r.reqNum('publishedAt');
    reviews.push({
      reviewId,
      asin,
      platform,
      rating,
      publishedAt,
      title: null,
      body: '',
      reviewer: '',
      url: null,
    });
  }
  return { kind: 'reviews', observedAt, campaignId, reviews };
}

// ---- sales --------------------------------------------------------------------------------------

export function writeSales(w: ByteWriter, o: SalesObservation): void {
  w.num(o.observedAt);
  writeOptStr(w, o.marketplace);
  const table = new StringTable();
  const refs = o.days.map((d) => [
    table.ref(d.asin),
    table.ref(d.marketplace),
    table.ref(d.date),
    table.ref(d.royalties.currency),
    table.ref(d.adSpend.currency),
  ]);
  table.write(w);
  w.uvarint(o.days.length);
  o.days.forEach((d, i) => {
    const [asin, marketplace, date, royaltyCurrency, adCurrency] = refs[i]!;
    w.uvarint(asin!);
    w.uvarint(marketplace!);
    w.uvarint(date!);
    w.num(d.units);
    w.num(d.royalties.minor);
    w.uvarint(royaltyCurrency!);
    w.num(d.adSpend.minor);
    w.uvarint(adCurrency!);
  });
}

export function readSales(r: ByteReader): SalesObservation {
  const observedAt = r.reqNum('observedAt');
  const marketplace = readOptStr(r);
  const str = readTable(r);
  const n = r.count(8);
  const days: SalesDay[] = [];
  for (let i = 0; i < n; i++) {
    const asin = str(r.uvarint());
    const dayMarketplace = str(r.uvarint());
    const date = str(r.uvarint());
    const units = r.reqNum('units');
    const royalties = { minor: r.reqNum('royalties'), currency: str(r.uvarint()) };
    const adSpend = { minor: r.reqNum('adSpend'), currency: str(r.uvarint()) };
    days.push({ asin, marketplace: dayMarketplace, date, units, royalties, adSpend });
  }
  return { kind: 'sales', observedAt, marketplace, days };
}
