// Consent: an MCP client asks to sign in to this deck server by OAuth. The person sees which
// client, where the answer goes and which scope, and allows or denies. The answer goes back to
// the client's redirect address with a one-time code (or access_denied). Optionally the person
// picks a deck the client's MCP sessions start bound to; by default the agent binds itself.
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
  const allow = h('button.primary', { type: 'button', id: 'consent-allow' }, 'Allow');
  const deny = h('button', { type: 'button', id: 'consent-deny' }, 'Deny');
  const box = h('section.panel.stack', { 'aria-labelledby': 'consent-title' },
    h('h1', { id: 'consent-title' }, 'Allow ', info.client_name, ' to use Agent Deck?'),
    h('dl', {},
      h('dt', {}, 'Client'), h('dd', {}, info.client_name, ' ', h('code.muted', {}, info.client_id)),
      h('dt', {}, 'Answer goes to'), h('dd', {}, h('code', {}, info.redirect_uri)),
      h('dt', {}, 'For'), h('dd', {}, h('code', {}, info.resource))),
    h('fieldset', {}, h('legend', {}, 'Scope'), choices),
    h('label.stack', { for: 'consent-deck' }, 'Sessions start bound to', deckPick),
    h('p.muted', {}, 'The client gets a token listed under Settings → Tokens, where you can revoke it. Allow only a client you just started signing in.'),
    h('div.actions', {}, allow, deny));
  allow.addEventListener('click', () => busy(box, answer(true)));
  deny.addEventListener('click', () => busy(box, answer(false)));
  fill(main, box);
}
