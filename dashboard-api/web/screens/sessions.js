// Sessions: the live MCP sessions and what they are bound to, refreshed every two seconds.
import { get } from '../api.js';
import { empty, fill, h, when } from '../ui.js';

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
      draw(body, await get('/sessions'));
      fill(stamp, 'Updated ', new Date().toLocaleTimeString());
    } catch (err) {
      fill(stamp, h('span.error', {}, 'Could not refresh: ', err.message));
    }
    if (live) timer = setTimeout(tick, every);
  };
  await tick();
  return () => { live = false; clearTimeout(timer); };
}

function draw(box, sessions) {
  if (!sessions.length) {
    return fill(box, empty(h('p', {}, 'No agent is connected.'),
      h('p', {}, 'Point an agent at this server’s /mcp endpoint (agent-deck setup writes the config); its session appears here.')));
  }
  fill(box, h('div.table-wrap', {}, h('table', {},
    h('thead', {}, h('tr', {}, ['Client', 'Badge', 'Workspace', 'Deck', 'Profile', 'Last seen'].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, sessions.map((s) => h('tr', { 'data-session': s.id },
      h('td', {}, s.client_name || h('span.muted', {}, 'unnamed')),
      h('td', {}, s.badge ? h('code', {}, '⌘' + s.badge) : ''),
      h('td', {}, s.workspace_root ? h('code', {}, s.workspace_root) : h('span.muted', {}, 'not bound')),
      h('td', {}, s.deck_id ? h('a', { href: '#/decks/' + encodeURIComponent(s.deck_id) }, s.deck_name || s.deck_id) : h('span.muted', {}, 'none')),
      h('td', {}, s.profile),
      h('td', {}, when(s.last_seen_at))))))));
}
