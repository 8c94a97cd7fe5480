// Sign-in through the hub's OpenID Connect provider, when serve has one (--oidc-issuer): a link
// to the provider, and the refusal the hub sent back (an unknown e-mail, a cancelled sign-in).
import { get } from '../api.js';
import { h } from '../ui.js';

/** The provider's sign-in link, or null when the hub has no provider. */
export async function oidcSignIn() {
  let opts;
  try { opts = await get('/dashboard/signin-options'); } catch { return null; }
  if (!opts || !opts.oidc) return null;
  return h('p', {}, h('a.button.primary', { href: opts.oidc_start, id: 'oidc-signin' }, 'Sign in with your organization\'s account'));
}

/** The refusal of a sign-in the provider sent back, as an error box takes it, or null. */
export function oidcRefusal() {
  const msg = new URLSearchParams(location.search).get('error');
  return msg ? { code: 'UNAUTHENTICATED', message: msg, details: {} } : null;
}
