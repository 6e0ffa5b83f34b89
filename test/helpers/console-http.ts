/**
 * A running console (`shelfwatch run` with console.enabled, or `startConsole`) driven over real
 * HTTP as a browser without script would: sign in with a token, read a page's form (its CSRF token
 * and the revision it was drawn from), post it urlencoded, follow nothing.
 */
export interface ConsoleForms {
  /** GETs `page`, then posts `fields` to `action` with that page's CSRF token and `rev`. */
  submit(
    page: string,
    action: string,
    fields: Record<string, string | readonly string[]>,
  ): Promise<{ status: number; location: string | null; body: string }>;
  get(path: string): Promise<{ status: number; body: string }>;
}

function encode(fields: Record<string, string | readonly string[]>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string') params.append(key, value);
    else for (const item of value) params.append(key, item);
  }
  return params.toString();
}

export async function consoleForms(base: string, token: string): Promise<ConsoleForms> {
  const url = (path: string) => new URL(path, base).toString();
  const login = await fetch(url('/login'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: encode({ token }),
    redirect: 'manual',
  });
  if (login.status !== 303) throw new Error(`console sign-in answered ${login.status}`);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const get = async (path: string) => {
    const res = await fetch(url(path), { headers: { cookie }, redirect: 'manual' });
    return { status: res.status, body: await res.text() };
  };
  return {
    get,
    submit: async (page, action, fields) => {
      const drawn = await get(page);
      if (drawn.status !== 200) throw new Error(`${page} answered ${drawn.status}`);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(drawn.body)?.[1];
      const rev = /name="rev" value="(\d+)"/.exec(drawn.body)?.[1];
      if (csrf === undefined) throw new Error(`${page} has no CSRF token`);
      const res = await fetch(url(action), {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: encode({ _csrf: csrf, ...(rev === undefined ? {} : { rev }), ...fields }),
        redirect: 'manual',
      });
      return { status: res.status, location: res.headers.get('location'), body: await res.text() };
    },
  };
}
