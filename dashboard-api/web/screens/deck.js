// A deck's page: its display_summary as agents see it, its cards in order per type; link from
// the collection, unlink (asking first when playbooks on the deck use the card), reorder with
// buttons or by dragging; the deck's rules for each service (tools, credential, sampling),
// argument capture for the audit trail, and charts of the calls made through the deck.
import { del, get, patch, post, put, seg } from '../api.js';
import { busy, confirmDialog, empty, field, fill, h, health, openDialog, toast, warningsBox } from '../ui.js';
import { callCharts } from '../charts.js';
import { deleteDeck, renameDeck } from './decks.js';

const types = [['service', 'services', 'Services'], ['credential', 'credentials', 'Credentials'], ['playbook', 'playbooks', 'Playbooks']];

export async function deckScreen(main, ref, lastWarnings) {
  const [deck, services, credentials, playbooks] = await Promise.all([
    get(`/decks/${seg(ref)}/snapshot`), get('/services'), get('/credentials'), get('/playbooks')]);
  const audit = await get(`/decks/${seg(deck.id)}/audit`);
  const collection = {
    service: services.map((s) => ({ id: s.id, name: s.name })),
    credential: credentials.map((c) => ({ id: c.id, name: c.label })),
    playbook: playbooks.map((p) => ({ id: p.id, name: p.title })),
  };
  const reload = (w) => deckScreen(main, deck.id, w);
  const warnings = h('div', { 'aria-live': 'polite' }, warningsBox(lastWarnings));
  const sections = types.map(([type, key, title]) => section(deck, type, deck[key], title, reload, credentials));
  fill(main,
    h('p', {}, h('a', { href: '#/decks' }, '← Decks')),
    h('div.row.spread', {}, h('h1', {}, deck.name), h('div.row', {},
      h('button', { type: 'button', onclick: () => renameDeck(deck, reload) }, 'Rename'),
      h('button.danger', { type: 'button', onclick: () => deleteDeck(deck, () => { location.hash = '#/decks'; }) }, 'Delete deck'))),
    h('p', {}, h('span.muted', {}, 'What agents see: '), h('span.summary', { 'data-summary': '' }, deck.display_summary)),
    warnings,
    linker(deck, collection, reload),
    sections,
    auditPanel(deck, audit),
    callCharts('Calls through this deck', { deck: deck.id, group_by: 'service' }, { deck: deck.name }));
}

/** Argument capture: whether calls through the deck keep their (redacted) arguments. */
function auditPanel(deck, audit) {
  const sw = h('input', { type: 'checkbox', role: 'switch', checked: audit.capture_arguments, 'aria-label': 'Capture arguments of calls through this deck' });
  const state = h('span', {}, audit.capture_arguments ? 'On' : 'Off');
  sw.addEventListener('change', async () => {
    try {
      const r = await put(`/decks/${seg(deck.id)}/audit`, { capture_arguments: sw.checked });
      state.textContent = r.capture_arguments ? 'On' : 'Off';
      toast(`Argument capture ${r.capture_arguments ? 'on' : 'off'} for ${deck.name}`);
    } catch (err) { sw.checked = !sw.checked; toast(err.message, true); }
  });
  return h('section.panel', { 'aria-labelledby': 'audit-title' }, h('h2', { id: 'audit-title' }, 'Audit'),
    h('label.switch', {}, sw, state, ' Keep the arguments of calls made through this deck'),
    h('p.hint', {}, 'Every call is recorded (who, which tool, how it ended, how long); with this on, its arguments are kept too, with secrets masked. ',
      h('a', { href: '#/activity?deck=' + encodeURIComponent(deck.name) }, 'See the calls')));
}

function section(deck, type, cards, title, reload, credentials) {
  const ids = cards.map((c) => c.id);
  const save = async (order) => {
    try {
      const r = await put(`/decks/${seg(deck.id)}/cards/${type}/order`, { ordered_card_ids: order });
      reload(r.warnings);
    } catch (err) { toast(err.message, true); }
  };
  const move = (i, d) => { const o = [...ids]; [o[i], o[i + d]] = [o[i + d], o[i]]; save(o); };
  const list = h('ol.cards', { 'aria-label': `${title} on this deck, in order` });
  let dragged = null;
  cards.forEach((c, i) => {
    const name = c.name || c.label || c.title || c.id;
    const li = h('li', { draggable: 'true', 'data-card': c.id },
      h('span.grip', { 'aria-hidden': 'true', title: 'Drag to reorder' }, '⠿'),
      h('span.grow', {}, type === 'service' ? h('a', { href: '#/services/' + seg(c.id) }, name) : name, ' ', h('code.muted', {}, c.id)),
      type === 'service' ? health(c.health) : null,
      h('button', { type: 'button', disabled: i === 0, 'aria-label': `Move ${name} up`, onclick: () => move(i, -1) }, '↑'),
      h('button', { type: 'button', disabled: i === cards.length - 1, 'aria-label': `Move ${name} down`, onclick: () => move(i, 1) }, '↓'),
      type === 'service' ? h('button', { type: 'button', 'aria-label': `Rules for ${name} on this deck`, onclick: () => rulesDialog(deck, c, credentials) }, 'Rules') : null,
      h('button.danger', { type: 'button', 'aria-label': `Unlink ${name}`, onclick: () => unlink(deck, type, c, name, reload) }, 'Unlink'));
    li.addEventListener('dragstart', (e) => { dragged = c.id; li.classList.add('dragging'); e.dataTransfer.setData('text/plain', c.id); });
    li.addEventListener('dragend', () => li.classList.remove('dragging'));
    li.addEventListener('dragover', (e) => { e.preventDefault(); li.classList.add('drop'); });
    li.addEventListener('dragleave', () => li.classList.remove('drop'));
    li.addEventListener('drop', (e) => {
      e.preventDefault();
      li.classList.remove('drop');
      if (!dragged || dragged === c.id) return;
      const o = ids.filter((x) => x !== dragged);
      o.splice(o.indexOf(c.id) + (ids.indexOf(dragged) < i ? 1 : 0), 0, dragged);
      save(o);
    });
    list.append(li);
  });
  return h('section', { 'aria-label': title, 'data-section': type }, h('h2', {}, `${title} (${cards.length})`),
    cards.length ? list : empty(`No ${title.toLowerCase()} on this deck yet. Link one from your collection above.`));
}

/**
 * Unlinks a card, asking first when playbooks on this deck depend on it (GET /dependents):
 * they would name a card their agents can no longer reach.
 */
async function unlink(deck, type, c, name, reload) {
  try {
    if (type !== 'playbook') {
      const onDeck = new Set(deck.playbooks.map((p) => p.id));
      const deps = (await get(`/dependents?card_type=${type}&card_id=${seg(c.id)}`)).filter((p) => onDeck.has(p.id));
      if (deps.length && !await confirmDialog(`Unlink ${name}?`, [
        h('p', {}, `${deps.length === 1 ? 'This playbook' : 'These playbooks'} on ${deck.name} use ${name}; agents bound to the deck will no longer reach it:`),
        h('ul', { 'data-dependents': '' }, deps.map((p) => h('li', {}, `${p.title} (${p.id})`)))], 'Unlink anyway')) return;
    }
    await del(`/decks/${seg(deck.id)}/cards/${type}/${seg(c.id)}`);
    toast(`Unlinked ${name}`);
    reload();
  } catch (err) { toast(err.message, true); }
}

/** The deck's rules for one service: which tools it exposes, its credential, sampling. */
async function rulesDialog(deck, svc, credentials) {
  const base = `/decks/${seg(deck.id)}/services/${seg(svc.id)}`;
  let settings, sampling, tools;
  try {
    [settings, sampling, tools] = await Promise.all([get(base + '/settings'), get(base + '/sampling'),
      get(`/services/${seg(svc.id)}/tools`).catch(() => null)]);
  } catch (err) { toast(err.message, true); return; }
  const name = svc.name || svc.id;
  openDialog(`Rules for ${name} on ${deck.name}`, (close) => {
    const allow = settings.allow_tools || [], deny = settings.deny_tools || [];
    const mode = allow.length ? 'allow' : deny.length ? 'deny' : 'all';
    const radio = (value, text) => h('label.choice', {}, h('input', { type: 'radio', name: 'mode', value, checked: value === mode }), text);
    const listed = new Set(mode === 'allow' ? allow : deny);
    const names = tools ? tools.map((t) => t.name) : [...listed];
    const boxes = names.map((t) => h('label.choice', {}, h('input', { type: 'checkbox', name: 'tool', value: t, checked: listed.has(t) }), h('code', {}, t)));
    const toolSet = h('fieldset', {}, h('legend', {}, 'Which tools'), h('div.hint', {}, 'Tick the tools the choice above applies to.'), boxes.length ? h('div.picks', {}, boxes) : h('p.muted', {}, 'The service lists no tools now.'));
    const modes = h('fieldset', {}, h('legend', {}, 'Tools agents on this deck see'),
      radio('all', 'All the service’s tools'), radio('allow', 'Only the ticked tools'), radio('deny', 'All but the ticked tools'));
    const cred = h('select', { name: 'credential_id' }, h('option', { value: '' }, 'The service’s own'),
      credentials.map((c) => h('option', { value: c.id, selected: c.id === settings.credential_id ? true : undefined }, `${c.label} (${c.id})`)));
    const sample = h('input', { type: 'checkbox', name: 'sampling', checked: sampling.allowed });
    const sync = () => { toolSet.hidden = modes.querySelector('input:checked').value === 'all'; };
    modes.addEventListener('change', sync);
    const form = h('form.stack', {
      'aria-label': `Rules for ${name}`,
      onsubmit: async (e) => {
        e.preventDefault();
        const m = modes.querySelector('input:checked').value;
        const ticked = [...form.querySelectorAll('input[name=tool]:checked')].map((b) => b.value);
        const done = await busy(form, async () => {
          const r = await patch(base + '/settings', { allow_tools: m === 'allow' ? ticked : [], deny_tools: m === 'deny' ? ticked : [], credential_id: cred.value });
          if (sample.checked !== sampling.allowed) await put(base + '/sampling', { allowed: sample.checked });
          return r;
        });
        if (done) { close(); toast(`Saved the rules for ${name}`); if (done.warnings?.length) toast(done.warnings.map((w) => w.message).join(' '), true); }
      },
    }, modes, toolSet,
    field('Credential this deck presents', cred, 'Another credential for this deck only, e.g. a read-only key; the service’s own otherwise.'),
    h('label.switch', {}, sample, ' Let the service ask the agent’s model for completions (sampling)'),
    h('p.hint', {}, 'Sampling spends the model of the agent that calls; off unless you allow it here.'),
    h('div.row', {}, h('button.primary', { type: 'submit' }, 'Save rules'), h('button', { type: 'button', onclick: close }, 'Cancel')));
    sync();
    return form;
  });
}

function linker(deck, collection, reload) {
  const linked = new Set([...deck.services, ...deck.credentials, ...deck.playbooks].map((c) => c.id));
  const q = h('input', { type: 'search', placeholder: 'Search your collection to link a card…', 'aria-label': 'Search the collection to link a card' });
  const results = h('ul', { 'aria-label': 'Cards you can link' });
  const draw = () => {
    const words = q.value.toLowerCase().split(/\s+/).filter(Boolean);
    const found = [];
    for (const [type] of types) {
      for (const c of collection[type]) {
        if (!linked.has(c.id) && words.every((w) => (c.name + ' ' + c.id).toLowerCase().includes(w))) found.push([type, c]);
      }
    }
    fill(results, found.slice(0, 12).map(([type, c]) => h('li', {}, h('span', {}, `${c.name} `), h('span.kind', {}, type), ' ',
      h('button', { type: 'button', 'aria-label': `Link ${c.name}`, onclick: async () => {
        try {
          await post(`/decks/${seg(deck.id)}/cards`, { card_type: type, card_id: c.id });
          toast(`Linked ${c.name}`);
          reload();
        } catch (err) { toast(err.message, true); }
      } }, 'Link'))),
    !found.length ? h('li.muted', {}, words.length ? 'Nothing unlinked matches.' : 'Every card of your collection is on this deck.') : null);
  };
  q.addEventListener('input', draw);
  draw();
  return h('section.panel', { 'aria-label': 'Link cards' }, h('h2', {}, 'Link a card'), q, results);
}
