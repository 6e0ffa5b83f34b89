/**
 * `validate --online`: each configured book and ARC campaign asked of the API once (the book in its
 * first marketplace, the campaign as a one-item page of its reviews), from the workspace's budget
 * (the interactive reserve may be used). A 404 is a problem naming the place in the config.
 */
import { type AnalyticsClient, NotFoundError } from '../api/index.ts';
import type { ShelfwatchConfig } from '../config/schema.ts';

export interface OnlineProblem {
  path: string;
  message: string;
}

/** Requests `validate --online` spends: one per book and one per campaign, per workspace. */
export function onlineRequests(config: ShelfwatchConfig): number {
  return config.workspaces.reduce((sum, ws) => sum + ws.books.length + ws.campaigns.length, 0);
}

/** Asks the API for each book and campaign of the config; `clientOf` gives a workspace's budgeted client. */
export async function checkOnline(
  config: ShelfwatchConfig,
  clientOf: (workspace: string) => AnalyticsClient,
): Promise<OnlineProblem[]> {
  const problems: OnlineProblem[] = [];
  for (const [w, ws] of config.workspaces.entries()) {
    const client = clientOf(ws.id);
    for (const [b, book] of ws.books.entries()) {
      const marketplace = book.marketplaces[0];
      try {
        await client.getBook(book.asin, marketplace === undefined ? {} : { marketplace });
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        problems.push({
          path: `workspaces[${w}].books[${b}].asin`,
          message: `the API does not know ${book.asin}${marketplace === undefined ? '' : ` in ${marketplace}`} (404: ${error.message})`,
        });
      }
    }
    for (const [c, campaign] of ws.campaigns.entries()) {
      try {
        const pages = client.listArcReviews({ campaignId: campaign.id, limit: 1 });
        await pages[Symbol.asyncIterator]().next();
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        problems.push({
          path: `workspaces[${w}].campaigns[${c}].id`,
          message: `the API does not know ARC campaign ${campaign.id} (404: ${error.message})`,
        });
      }
    }
  }
  return problems;
}
