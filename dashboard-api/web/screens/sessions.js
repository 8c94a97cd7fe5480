// Sessions: the live MCP sessions, the token and scope each was opened with, and what they are
// bound to, refreshed every two seconds; a session can be ended here.
import { del, get, seg } from '../api.js';
import { confirmDialog, empty, fill, h, toast, when } from '../ui.js';

const every = 2000;

export async function sessionsScreen(main) {
  const body = h('div', { 'aria-live': 'polite', 'aria-busy': 'false' });
  const stamp = h('p.muted');
  fill(main, h('h1', {}, 'Sessions'),
    h('p.muted', {}, 'Agents connected to this deck server now. The list updates by itself.'), body, stamp);
  let timer = 0;
  let live = true;
  const tick = async () => {
    try {
      draw(body, await get('/sessions'), () => { clearTimeout(timer); if (live) tick(); });
      fill(stamp, 'Updated ', new Date().toLocaleTimeString());
    } catch (err) {
      fill(stamp, h('span.error', {}, 'Could not refresh: ', err.message));
    }
    if (live) timer = setTimeout(tick, every);
  };
  await tick();
  return () => { live = false; clearTimeout(timer); };
}

/** Ends a session after asking; refresh redraws the list. */
async function end(s, refresh) {
  const who = s.client_name || 'an unnamed client';
  const ok = await confirmDialog(`End the session of ${who}?`, [
    h('p', {}, 'Its next request is refused and the client must start a new session, which its token still allows.'),
    s.token ? h('p', {}, 'To keep it out, revoke the token “', s.token.name, '” under Settings.') : null], 'End session');
  if (!ok) return;
  try {
    await del('/sessions/' + seg(s.id));
    toast(`Ended the session of ${who}`);
  } catch (err) { toast(err.message, true); }
  refresh();
}

const tokenKinds = { dashboard: 'dashboard', oauth: 'OAuth sign-in', token: 'API token' };

function draw(box, sessions, refresh) {
  if (!sessions.length) {
    return fill(box, empty(h('p', {}, 'No agent is connected.'),
      h('p', {}, 'Point an agent at this server’s /mcp endpoint (agent-deck setup writes the config); its session appears here.')));
  }
  fill(box, h('div.table-wrap', {}, h('table', {},
    h('thead', {}, h('tr', {}, ['Client', 'Badge', 'Workspace', 'Deck', 'Token', 'Scope', 'Profile', 'Last seen', ''].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, sessions.map((s) => h('tr', { 'data-session': s.id },
      h('td', {}, s.client_name || h('span.muted', {}, 'unnamed')),
      h('td', {}, s.badge ? h('code', {}, '⌘' + s.badge) : ''),
      h('td', {}, s.workspace_root ? h('code', {}, s.workspace_root) : h('span.muted', {}, 'not bound')),
      h('td', {}, s.deck_id ? h('a', { href: '#/decks/' + encodeURIComponent(s.deck_id) }, s.deck_name || s.deck_id) : h('span.muted', {}, 'none')),
      h('td', { 'data-token': s.token ? s.token.name : '' }, s.token ? [s.token.name, h('div.hint', {}, tokenKinds[s.token.kind] || s.token.kind)] : h('span.muted', {}, 'none')),
      h('td.nowrap', {}, h('code', {}, s.scope)),
      h('td', {}, s.profile),
      h('td.nowrap', {}, when(s.last_seen_at)),
      h('td', {}, h('button.danger', { type: 'button', 'aria-label': `End the session of ${s.client_name || 'an unnamed client'} (${s.badge || s.id})`,
        onclick: () => end(s, refresh) }, 'End'))))))));
}
