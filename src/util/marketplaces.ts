/** The contract's marketplaces: one list for the API client, the config and the simulator. */
export const MARKETPLACES = [
  'US',
  'UK',
  'DE',
  'FR',
  'ES',
  'IT',
  'NL',
  'JP',
  'IN',
  'CA',
  'BR',
  'MX',
  'AU',
] as const;
export type Marketplace = (typeof MARKETPLACES)[number];

export function isMarketplace(text: string): text is Marketplace {
  return (MARKETPLACES as readonly string[]).includes(text);
}
