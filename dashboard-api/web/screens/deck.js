// A deck's page: its display_summary as agents see it, its cards in order per type; link from
// the collection, unlink (with dependency warnings), reorder with buttons or by dragging.
import { del, get, post, put, seg } from '../api.js';
import { empty, fill, h, health, toast, warningsBox } from '../ui.js';
import { deleteDeck, renameDeck } from './decks.js';

const types = [['service', 'services', 'Services'], ['credential', 'credentials', 'Credentials'], ['playbook', 'playbooks', 'Playbooks']];

export async function deckScreen(main, ref, lastWarnings) {
  const [deck, services, credentials, playbooks] = await Promise.all([
    get(`/decks/${seg(ref)}/snapshot`), get('/services'), get('/credentials'), get('/playbooks')]);
  const collection = {
    service: services.map((s) => ({ id: s.id, name: s.name })),
    credential: credentials.map((c) => ({ id: c.id, name: c.label })),
    playbook: playbooks.map((p) => ({ id: p.id, name: p.title })),
  };
  const reload = (w) => deckScreen(main, deck.id, w);
  const warnings = h('div', { 'aria-live': 'polite' }, warningsBox(lastWarnings));
  const sections = types.map(([type, key, title]) => section(deck, type, deck[key], title, reload));
  fill(main,
    h('p', {}, h('a', { href: '#/decks' }, '← Decks')),
    h('div.row.spread', {}, h('h1', {}, deck.name), h('div.row', {},
      h('button', { type: 'button', onclick: () => renameDeck(deck, reload) }, 'Rename'),
      h('button.danger', { type: 'button', onclick: () => deleteDeck(deck, () => { location.hash = '#/decks'; }) }, 'Delete deck'))),
    h('p', {}, h('span.muted', {}, 'What agents see: '), h('span.summary', { 'data-summary': '' }, deck.display_summary)),
    warnings,
    linker(deck, collection, reload),
    sections);
}

function section(deck, type, cards, title, reload) {
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
      h('button.danger', { type: 'button', 'aria-label': `Unlink ${name}`, onclick: async () => {
        try {
          const r = await del(`/decks/${seg(deck.id)}/cards/${type}/${seg(c.id)}`);
          toast(`Unlinked ${name}`);
          reload(r.warnings);
        } catch (err) { toast(err.message, true); }
      } }, 'Unlink'));
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
