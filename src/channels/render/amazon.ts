/** Amazon store domains per marketplace, for links to a book's product page. */

// A Map, not an object: a marketplace string like "constructor" must find nothing.
const AMAZON_DOMAIN = new Map<string, string>(
  Object.entries({
    US: 'amazon.com',
    UK: 'amazon.co.uk',
    DE: 'amazon.de',
    FR: 'amazon.fr',
    ES: 'amazon.es',
    IT: 'amazon.it',
    NL: 'amazon.nl',
    JP: 'amazon.co.jp',
    IN: 'amazon.in',
    CA: 'amazon.ca',
    BR: 'amazon.com.br',
    MX: 'amazon.com.mx',
    AU: 'amazon.com.au',
  }),
);

/**
 * The book's product page. Without a marketplace (reviews carry none) the US store is the
 * reasonable page; an unknown marketplace gets no link rather than a wrong store.
 */
export function bookUrl(asin: string, marketplace: string | undefined): string | undefined {
  const domain = AMAZON_DOMAIN.get(marketplace ?? 'US');
  if (domain === undefined || !/^[A-Z0-9]{10}$/.test(asin)) return undefined;
  return `https://www.${domain}/dp/${asin}`;
}

export function amazonDomain(marketplace: string | undefined): string | undefined {
  return AMAZON_DOMAIN.get(marketplace ?? 'US');
}
