// Consent: an MCP client asks to sign in to this deck server by OAuth. The person sees which
// client, where the answer goes and which scope, and allows or denies. The answer goes back to
// the client's redirect address with a one-time code (or access_denied). Optionally the person
// picks a deck the client's MCP sessions start bound to; by default the agent binds itself.
// A client names itself (at registration, or in its metadata document): anyone can register as
// "Claude Code", so the name is shown quoted and marked unverified, beside the host the code
// goes to, which is what the person can check.
import { get, post } from '../api.js';
import { busy, errorBox, fill, h } from '../ui.js';

export async function consentScreen(main) {
  const params = new URLSearchParams(location.hash.replace(/^#\/consent\??/, ''));
  const request = {};
  for (const k of ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'resource']) {
    if (params.has(k)) request[k] = params.get(k);
  }
  let info;
  try {
    info = await get('/oauth/consent?' + new URLSearchParams(request).toString());
  } catch (err) {
    return fill(main, h('h1', {}, 'Sign-in request'), errorBox(err));
  }
  const scopes = [
    ['agent', 'Use and edit the deck: call tools, bind decks, change cards (an agent token)'],
    ['agent:read', 'Read only: list decks and cards, call no tools that change anything'],
  ];
  let decks = [];
  try {
    decks = await get('/decks');
  } catch (err) {
    decks = [];
  }
  const deckPick = h('select', { name: 'deck', id: 'consent-deck', 'aria-label': 'Deck the sessions start bound to' },
    h('option', { value: '' }, 'No deck: the agent binds itself'),
    decks.map((d) => h('option', { value: d.id }, d.name)));
  const choices = scopes.filter(([s]) => info.scope === 'agent' || s === 'agent:read').map(([s, text]) =>
    h('label.choice', {}, h('input', { type: 'radio', name: 'scope', value: s, checked: s === info.scope }), ' ', h('code', {}, s), ' — ', text));
  const answer = (approve) => async () => {
    const scope = main.querySelector('input[name=scope]:checked')?.value || info.scope;
    const deck = deckPick.value;
    const out = await post('/oauth/consent', { ...request, scope, approve, ...(deck ? { deck } : {}) });
    location.assign(out.redirect_to);
  };
  const to = redirectTarget(info.redirect_uri);
  const namedBy = info.client_id_is_url
    ? ['the name in its metadata document at ', h('code', {}, hostOf(info.client_id))]
    : ['the name the client gave itself when it registered'];
  const unverified = h('p.warning', { id: 'consent-unverified', role: 'note' },
    h('strong', {}, 'Unverified name. '), '“', info.client_name, '” is ', namedBy,
    '; Agent Deck has not verified who runs this client. The sign-in code goes to ',
    h('code', {}, to.host), to.local ? ' (this computer)' : ' (another computer)', '.');
  const allow = h('button.primary', { type: 'button', id: 'consent-allow' }, 'Allow');
  const deny = h('button', { type: 'button', id: 'consent-deny' }, 'Deny');
  const box = h('section.panel.stack', { 'aria-labelledby': 'consent-title' },
    h('h1', { id: 'consent-title' }, 'Allow “', info.client_name, '” to use Agent Deck?'),
    unverified,
    h('dl', {},
      h('dt', {}, 'Client'), h('dd', {}, '“', info.client_name, '” ', h('span.tag', {}, 'unverified name'), ' ', h('code.muted', {}, info.client_id)),
      h('dt', {}, 'Answer goes to'), h('dd', {}, h('strong', {}, to.host), to.local ? ' (this computer) ' : ' ', h('code', {}, info.redirect_uri)),
      h('dt', {}, 'For'), h('dd', {}, h('code', {}, info.resource))),
    h('fieldset', {}, h('legend', {}, 'Scope'), choices),
    h('label.stack', { for: 'consent-deck' }, 'Sessions start bound to', deckPick),
    h('p.muted', {}, 'The client gets a token listed under Settings → Tokens, where you can revoke it. Allow only a client you just started signing in.'),
    h('div.actions', {}, allow, deny));
  allow.addEventListener('click', () => busy(box, answer(true)));
  deny.addEventListener('click', () => busy(box, answer(false)));
  fill(main, box);
}

// redirectTarget is the host (with port) a redirect URI sends the code to, and whether that is
// this computer (a loopback address).
function redirectTarget(uri) {
  try {
    const u = new URL(uri);
    const name = u.hostname.replace(/^\[|\]$/g, '');
    return { host: u.host, local: name === 'localhost' || name === '::1' || /^127\./.test(name) };
  } catch {
    return { host: uri, local: false };
  }
}

function hostOf(uri) {
  try {
    return new URL(uri).host;
  } catch {
    return uri;
  }
}
