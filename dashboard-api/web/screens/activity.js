// Activity: what agents did through the deck server. The tool-call audit trail with filters
// (deck, service, tool, outcome, token, period) and one call's detail; the exec audit; and which
// playbooks agents open, and which never.
import { get, seg } from '../api.js';
import { empty, field, fill, h, when } from '../ui.js';

const tabs = [['#/activity', 'Tool calls'], ['#/activity/exec', 'Exec'], ['#/activity/playbooks', 'Playbook usage']];
const periods = [['1h', 'Last hour'], ['24h', 'Last 24 hours'], ['168h', 'Last 7 days'], ['720h', 'Last 30 days'], ['', 'Everything kept']];
const outcomes = [['', 'Any outcome'], ['ok', 'ok'], ['is_error', 'is_error (the tool failed)'], ['error', 'error (refused or unreachable)']];
const filterKeys = ['deck', 'service', 'tool', 'outcome', 'token', 'since'];

function header(main, current, ...rest) {
  fill(main, h('h1', {}, 'Activity'),
    h('nav.tabs', { 'aria-label': 'Activity' }, tabs.map(([href, text]) =>
      h('a', { href, 'aria-current': href === current ? 'page' : undefined }, text))),
    ...rest);
}

const select = (name, label, options, value) => field(label, h('select', { name },
  options.map(([v, t]) => h('option', { value: v, selected: v === value ? true : undefined }, t))));

/** The tool-call audit trail, filtered by the hash's query (read raw: names may hold & or %). */
export async function activityScreen(main) {
  const params = new URLSearchParams(location.hash.split('?')[1] || '');
  if (!params.has('since')) params.set('since', '24h');
  const [services, decks, tokens] = await Promise.all([get('/services'), get('/decks'), get('/tokens')]);
  const names = (list, key) => [...new Set(list.map((x) => x[key]))].sort().map((n) => [n, n]);
  const form = h('form.row.panel', {
    'aria-label': 'Filter calls',
    onsubmit: (e) => {
      e.preventDefault();
      const q = new URLSearchParams();
      for (const k of filterKeys) if (form[k].value || k === 'since') q.set(k, form[k].value.trim());
      location.hash = '#/activity?' + q.toString();
    },
  },
  select('deck', 'Deck', [['', 'Any deck'], ...names(decks, 'name')], params.get('deck') || ''),
  select('service', 'Service', [['', 'Any service'], ...names(services, 'name')], params.get('service') || ''),
  field('Tool', h('input', { name: 'tool', value: params.get('tool') || '', placeholder: 'any tool', size: 12 })),
  select('outcome', 'Outcome', outcomes, params.get('outcome') || ''),
  select('token', 'Token', [['', 'Any token'], ...names(tokens, 'name')], params.get('token') || ''),
  select('since', 'Period', periods, params.get('since')),
  h('button.primary', { type: 'submit' }, 'Show calls'));
  const rows = h('tbody');
  const more = h('div.row');
  const table = h('div.table-wrap', {}, h('table', { 'aria-label': 'Tool calls, newest first' },
    h('thead', {}, h('tr', {}, ['When', 'Service · tool', 'Deck', 'Who', 'Outcome', 'Took'].map((t) => h('th', { scope: 'col' }, t)))),
    rows));
  const list = h('div', { 'aria-live': 'polite' });
  header(main, '#/activity', h('p.muted', {}, 'Every tool call agents made through this server, newest first. Arguments are kept only for decks that capture them.'),
    form, list);
  const q = new URLSearchParams([...params].filter(([k, v]) => filterKeys.includes(k) && v));
  q.set('limit', '50');
  const page = async (cursor) => {
    if (cursor) q.set('cursor', cursor);
    const p = await get('/tool-calls?' + q.toString());
    rows.append(...p.calls.map(callRow));
    fill(more, p.next_cursor ? h('button', { type: 'button', onclick: () => page(p.next_cursor) }, 'Show older calls') : null);
    return p;
  };
  const first = await page();
  fill(list, first.calls.length ? [table, more]
    : empty(h('p', {}, 'No calls match.'), h('p', {}, 'Widen the period or clear a filter; calls appear here as agents make them.')));
}

function callRow(c) {
  return h('tr', { 'data-call': c.id },
    h('td.nowrap', {}, h('a', { href: '#/activity/calls/' + c.id }, when(c.at), h('span.sr', {}, `, call of ${c.tool}`))),
    h('td', {}, c.service_name || h('span.muted', {}, 'unknown'), ' · ', h('code', {}, c.tool)),
    h('td', {}, c.deck_name || h('span.muted', {}, 'none')),
    h('td', {}, c.token_name || h('span.muted', {}, 'no token'), c.client_name ? h('div.hint', {}, c.client_name) : null),
    h('td.nowrap', {}, outcome(c)),
    h('td.nowrap', {}, `${c.duration_ms.toFixed(1)} ms`));
}

const outcome = (c) => h('span.outcome-' + c.outcome, { 'data-outcome': c.outcome }, c.outcome, c.error_code ? ` ${c.error_code}` : '');

/** One call of the audit trail. */
export async function callScreen(main, id) {
  const c = await get('/tool-calls/' + seg(id));
  const filter = (pairs) => '#/activity?' + new URLSearchParams([...pairs, ['since', '']]).toString();
  const row = (term, ...desc) => [h('dt', {}, term), h('dd', {}, ...desc)];
  fill(main,
    h('p', {}, h('a', { href: '#/activity' }, '← Activity')),
    h('h1', {}, `Call of ${c.tool}`),
    h('section.panel', { 'aria-label': 'The call' }, h('dl', { 'data-call-detail': c.id },
      row('When', h('time', { datetime: c.at }, new Date(c.at).toLocaleString())),
      row('Service', c.service_id ? h('a', { href: '#/services/' + seg(c.service_id) }, c.service_name) : c.service_name || 'unknown'),
      row('Tool', h('code', {}, c.tool)),
      row('Deck', c.deck_id ? h('a', { href: '#/decks/' + seg(c.deck_id) }, c.deck_name) : c.deck_name || 'none'),
      row('Token', c.token_name || 'none'),
      row('Client', c.client_name || 'none'),
      row('Session', c.session_id ? h('code', {}, c.session_id) : 'none (a REST call)'),
      row('Outcome', outcome(c)),
      row('Took', `${c.duration_ms.toFixed(1)} ms`),
      row('Result', `${c.result_bytes} bytes (results are never kept)`),
      row('Arguments', c.arguments ? h('pre', { 'data-arguments': '' }, JSON.stringify(c.arguments, null, 2))
        : h('span.muted', {}, 'not captured: turn on argument capture on the deck to keep them (redacted)')))),
    h('div.row', {},
      h('a.button', { href: filter([['service', c.service_name], ['tool', c.tool]]) }, 'Calls of this tool'),
      c.deck_name ? h('a.button', { href: filter([['deck', c.deck_name]]) }, 'Calls through this deck') : null,
      c.token_name ? h('a.button', { href: filter([['token', c.token_name]]) }, 'Calls with this token') : null));
}

/** The exec audit: each `agent-deck exec`, which credentials it was given, how it ended. */
export async function execScreen(main) {
  const [audits, tokens, decks] = await Promise.all([get('/exec'), get('/tokens'), get('/decks')]);
  const tokenName = new Map(tokens.map((t) => [t.id, t.name]));
  const deckName = new Map(decks.map((d) => [d.id, d.name]));
  header(main, '#/activity/exec', h('p.muted', {}, 'Commands run with agent-deck exec and the credentials they were given (never the values).'),
    audits.length ? h('div.table-wrap', {}, h('table', { 'aria-label': 'Exec audit, newest first' },
      h('thead', {}, h('tr', {}, ['When', 'Command', 'Credentials', 'Deck', 'Exit', 'Token'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, audits.map((a) => h('tr', { 'data-exec': a.id },
        h('td.nowrap', {}, when(a.created_at)),
        h('td', {}, h('code', {}, a.command.join(' '))),
        h('td', {}, a.credential_ids.map((c) => h('span.tag', {}, c))),
        h('td', {}, a.deck_id ? deckName.get(a.deck_id) || a.deck_id : h('span.muted', {}, 'none')),
        h('td.nowrap', {}, a.exit_code === undefined || a.exit_code === null ? h('span.muted', {}, a.finished_at ? 'unknown' : 'running') : String(a.exit_code)),
        h('td', {}, a.token_id ? tokenName.get(a.token_id) || a.token_id : h('span.muted', {}, 'none')))))))
      : empty(h('p', {}, 'No command was run with agent-deck exec yet.'), h('p', {}, 'agent-deck exec -- COMMAND runs a command with credentials in its environment; each run is listed here.')));
}

/** Which playbooks agents open (get_playbook) within the retention, and which never. */
export async function usageScreen(main) {
  const [usage, playbooks] = await Promise.all([get('/playbook-usage'), get('/playbooks')]);
  const used = new Map(usage.map((u) => [u.playbook_id, u]));
  const opened = playbooks.filter((p) => used.has(p.id)).sort((a, b) => used.get(b.id).fetches - used.get(a.id).fetches);
  const never = playbooks.filter((p) => !used.has(p.id));
  const link = (p) => h('a', { href: `#/playbooks/${seg(p.id)}/history` }, p.title);
  header(main, '#/activity/playbooks',
    h('p.muted', {}, 'How often agents opened each playbook (get_playbook) in the kept period. A playbook never opened may have triggers that never match.'),
    h('section', { 'aria-labelledby': 'opened-title' }, h('h2', { id: 'opened-title' }, `Opened (${opened.length})`),
      opened.length ? h('div.table-wrap', {}, h('table', { 'aria-labelledby': 'opened-title' },
        h('thead', {}, h('tr', {}, ['Playbook', 'Opened', 'Last opened', 'Triggers'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, opened.map((p) => h('tr', { 'data-usage': p.id },
          h('td', {}, link(p)), h('td.nowrap', {}, `${used.get(p.id).fetches} times`), h('td.nowrap', {}, when(used.get(p.id).last_fetched)),
          h('td', {}, (p.triggers || []).map((t) => h('span.tag', {}, t))))))))
        : empty('No agent opened a playbook yet.')),
    h('section', { 'aria-labelledby': 'never-title' }, h('h2', { id: 'never-title' }, `Never opened (${never.length})`),
      never.length ? h('ul', { 'aria-labelledby': 'never-title' }, never.map((p) => h('li', { 'data-never': p.id }, link(p), ' ',
        (p.triggers || []).length ? h('span.muted', {}, 'triggers: ', p.triggers.join(', ')) : h('span.muted', {}, 'no triggers'))))
        : h('p.muted', {}, 'Every playbook was opened at least once.')));
}
