// Decks: list, create, rename, delete. A deck's page is screens/deck.js.
import { del, get, patch, post, seg } from '../api.js';
import { busy, empty, field, fill, h, openDialog, toast, when } from '../ui.js';

export async function decksScreen(main) {
  const decks = await get('/decks');
  const reload = () => decksScreen(main);
  const name = h('input', { name: 'name', required: true, placeholder: 'e.g. Work' });
  const form = h('form.row.panel', {
    'aria-label': 'Create a deck',
    onsubmit: async (e) => {
      e.preventDefault();
      const d = await busy(form, () => post('/decks', { name: name.value.trim() }));
      if (d) { toast(`Created deck ${d.name}`); location.hash = '#/decks/' + seg(d.id); }
    },
  }, h('label.inline', {}, 'New deck ', name), h('button.primary', { type: 'submit' }, 'Create deck'));
  fill(main, h('h1', {}, 'Decks'), form,
    decks.length ? h('div.grid', {}, decks.map((d) => h('article.card', { 'aria-label': `Deck ${d.name}`, 'data-deck': d.id },
      h('span.kind', {}, 'Deck'), h('h3', {}, h('a', { href: '#/decks/' + seg(d.id) }, d.name)),
      h('p.muted', {}, 'changed ', when(d.updated_at)),
      h('div.actions', {},
        h('a.button', { href: '#/decks/' + seg(d.id), 'aria-label': `Open deck ${d.name}` }, 'Open'),
        h('button', { type: 'button', 'aria-label': `Rename deck ${d.name}`, onclick: () => renameDeck(d, reload) }, 'Rename'),
        h('button.danger', { type: 'button', 'aria-label': `Delete deck ${d.name}`, onclick: () => deleteDeck(d, reload) }, 'Delete')))))
      : empty(h('p', {}, 'No decks yet.'), h('p', {}, 'Create one above, then link cards from your collection to it. An agent binds to a deck and sees only its cards.')));
}

export function renameDeck(d, reload) {
  openDialog(`Rename deck ${d.name}`, (close) => {
    const name = h('input', { name: 'name', required: true, value: d.name });
    const form = h('form.stack', {
      onsubmit: async (e) => {
        e.preventDefault();
        const r = await busy(form, () => patch('/decks/' + seg(d.id), { name: name.value.trim() }));
        if (r) { close(); toast(`Renamed to ${r.name}`); reload(); }
      },
    }, field('Name', name), h('div.row', {}, h('button.primary', { type: 'submit' }, 'Rename'), h('button', { type: 'button', onclick: close }, 'Cancel')));
    return form;
  });
}

export function deleteDeck(d, reload) {
  openDialog(`Delete deck ${d.name}?`, (close) => {
    const form = h('form.stack', {
      onsubmit: async (e) => {
        e.preventDefault();
        const ok = await busy(form, () => del('/decks/' + seg(d.id)).then(() => true));
        if (ok) { close(); toast(`Deleted deck ${d.name}`); reload(); }
      },
    }, h('p', {}, 'Its cards stay in your collection; sessions bound to it lose their deck.'),
    h('div.row', {}, h('button.danger', { type: 'submit' }, 'Delete deck'), h('button', { type: 'button', onclick: close }, 'Cancel')));
    return form;
  });
}
