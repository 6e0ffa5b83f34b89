/**
 * The enums a suggestion offers from the values its answers showed: platforms and marketplaces in
 * another case than ours, Keepa's domain numbers or Amazon's marketplace ids, a sales day's states;
 * what it cannot map is said in `ctx.undecided`. Pure.
 */
import { MARKETPLACES, PLATFORMS } from '../../api/tooling.ts';
import { isMarketplace } from '../../util/marketplaces.ts';
import { AMAZON_MARKETPLACE_IDS, KEEPA_DOMAINS } from './suggest-evidence.ts';
import type { Ctx } from './suggest-fields.ts';

export function enumsOf(ctx: Ctx): Record<string, Record<string, string>> {
  const enums: Record<string, Record<string, string>> = {};
  // Values seen in another case than ours: every value of ours is mapped the same way, since one
  // answer shows only some of them (a page of reviews may all be from one platform).
  const recased = (seen: Set<string>, ours: readonly string[]) => {
    const upper = [...seen].some((v) => v !== v.toLowerCase() && ours.includes(v.toLowerCase()));
    const lower = [...seen].some((v) => v !== v.toUpperCase() && ours.includes(v.toUpperCase()));
    const map = (f: (v: string) => string) =>
      Object.fromEntries(ours.map((v) => [f(v), v]).filter(([k, v]) => k !== v));
    return upper ? map((v) => v.toUpperCase()) : lower ? map((v) => v.toLowerCase()) : {};
  };
  const platforms = recased(ctx.platforms, PLATFORMS);
  if (Object.keys(platforms).length > 0) enums.platform = platforms;
  const marketplaces = recased(ctx.marketplaces, MARKETPLACES);
  if (Object.keys(marketplaces).length > 0) enums.marketplace = marketplaces;
  if (ctx.marketplaceIds.size > 0) {
    const ids = [...ctx.marketplaceIds].sort((a, b) => a - b);
    if (ids.every((id) => KEEPA_DOMAINS[String(id)] !== undefined)) {
      enums.marketplace = { ...KEEPA_DOMAINS };
      ctx.undecided.push(
        `enums.marketplace: marketplaces come as numbers (${ids.join(', ')}): Keepa's domain ids are offered (1 US, 2 UK, 3 DE, …): check them in the API document`,
      );
    } else
      ctx.undecided.push(
        `enums.marketplace: marketplaces come as numbers (${ids.join(', ')}): map each to ours (${MARKETPLACES.join(', ')})`,
      );
  }
  if (Object.keys(ctx.salesStatus).length > 0) enums.salesStatus = ctx.salesStatus;
  const unknown = [...ctx.marketplaces].filter((m) => !isMarketplace(m) && !isMarketplace(m.toUpperCase()));
  if (unknown.length > 0 && unknown.every((m) => AMAZON_MARKETPLACE_IDS[m] !== undefined)) {
    enums.marketplace = { ...AMAZON_MARKETPLACE_IDS };
    ctx.undecided.push(
      `enums.marketplace: the API says ${unknown.map((m) => `"${m}"`).join(', ')}: Amazon's marketplace ids are offered (ATVPDKIKX0DER US, A1F83G8C2ARO7P UK, …)`,
    );
  } else if (unknown.length > 0)
    ctx.undecided.push(
      `enums.marketplace: the API says ${unknown.map((m) => `"${m}"`).join(', ')}: map each to ours (${MARKETPLACES.join(', ')})`,
    );
  return enums;
}
