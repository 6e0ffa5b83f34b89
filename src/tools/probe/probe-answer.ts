/** What probe records of one request: the answer, and what it learnt from asking (parameters, pages, evidence). */
import type { EndpointName } from '../../api/tooling.ts';
import type { ParamFinding } from './probe-params.ts';

/** What a list's last-page request found (probe-tail.ts): the style, the parameter the API took, the value sent. */
export interface PageFinding {
  style: 'offset' | 'page' | 'cursor';
  param: string;
  /** The offset or page number sent, or the cursor the first page gave. */
  value: number | string;
  /** The cursor was taken only without the other filters (a 400 to both): `cursor.alone`. */
  alone?: boolean;
}

/** One request and its answer, as probe records it and replay serves it. */
export interface RecordedAnswer {
  endpoint: EndpointName;
  method: string;
  /** Path below the base URL with its query: `/v1/books/B0X?marketplace=US`. */
  path: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** The query parameters sent, as probe named them: ours → the API's name and format. */
  params?: ParamFinding[];
  /** Parameters the API asked for and probe added (`granularity=day`). */
  fixed?: Record<string, string>;
  /** A list's last page (probe-tail.ts): the page-number or offset parameter it took, and the value. */
  page?: PageFinding;
  /** What this answer showed that no field can (values read only for the first, a token sent alone), said in the notes. */
  evidence?: string[];
}
