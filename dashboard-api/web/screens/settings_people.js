// Settings › People: who tokens, decks and cards belong to. Admins add people, make a one-time
// sign-in link for someone, and remove people (their tokens and agent sessions end at once);
// members see who there is, to share decks with them.
import { del, get, post, seg } from '../api.js';
import { busy, empty, field, fill, h, openDialog, toast, when } from '../ui.js';

export async function drawPeople(box, link) {
  const [people, me] = await Promise.all([get('/people'), get('/dashboard/session')]);
  const admin = me.role !== 'member';
  fill(box, h('h2', { id: 'people-title' }, 'People'),
    h('p.muted', {}, admin
      ? 'Each person has their own tokens, decks and cards. Members use their own decks and those shared with them; admins everything.'
      : `You are ${me.person}, a member: you use your own decks and those shared with you.`),
    admin ? addForm(box) : null,
    link ? signInLink(link) : null,
    people.length ? h('div.table-wrap', {}, h('table', {},
      h('thead', {}, h('tr', {}, ['Name', 'Role', 'E-mail', 'Added', ''].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, people.map((p) => h('tr', { 'data-person': p.name },
        h('td', {}, p.name, p.name === me.person ? h('span.tag', {}, 'you') : null),
        h('td', {}, p.role), h('td', {}, p.email || '—'), h('td', {}, when(p.created_at)),
        h('td', {}, admin && p.name !== me.person ? h('div.row', {},
          h('button', { type: 'button', 'aria-label': `Sign-in link for ${p.name}`, onclick: () => makeLink(p, box) }, 'Sign-in link'),
          h('button.danger', { type: 'button', 'aria-label': `Remove ${p.name}`, onclick: () => remove(p, box) }, 'Remove')) : null)))))) : empty('Nobody yet.'));
}

function addForm(box) {
  const name = h('input', { name: 'person', required: true, placeholder: 'e.g. alice' });
  const role = h('select', { name: 'role' }, ['member', 'admin'].map((r) => h('option', { value: r }, r)));
  const email = h('input', { name: 'email', type: 'email', placeholder: 'for OpenID Connect sign-in (optional)' });
  const form = h('form.row', {
    'aria-label': 'Add a person',
    onsubmit: async (e) => {
      e.preventDefault();
      const p = await busy(form, () => post('/people', { name: name.value.trim(), role: role.value, email: email.value.trim() }));
      if (p) { toast(`Added ${p.name}`); drawPeople(box); }
    },
  }, field('Name', name), field('Role', role), field('E-mail', email), h('button.primary', { type: 'submit' }, 'Add person'));
  return form;
}

async function makeLink(p, box) {
  try {
    const c = await post('/dashboard/signin-codes?person=' + seg(p.name));
    drawPeople(box, { person: p.name, url: `${location.origin}/signin#code=${c.code}` });
  } catch (err) { toast(err.message, true); }
}

function signInLink(link) {
  return h('div.warning', { role: 'status' },
    h('p', {}, h('strong', {}, `A one-time sign-in link for ${link.person}. `), 'It works once, within two minutes: hand it over now.'),
    h('div.secret-once', {}, h('code', { 'data-signin-link': '' }, link.url)));
}

function remove(p, box) {
  openDialog(`Remove ${p.name}?`, (close) => {
    const form = h('form.stack', {
      onsubmit: async (e) => {
        e.preventDefault();
        const r = await busy(form, () => del('/people/' + seg(p.name)));
        if (!r) return;
        close();
        toast(`Removed ${p.name}: ${r.revoked_tokens} token(s) revoked, ${r.ended_sessions.length} session(s) ended`);
        drawPeople(box);
      },
    }, h('p', {}, 'Their tokens are revoked and their agents\' sessions end at once. Their decks and cards stay.'),
    h('div.row', {}, h('button.danger', { type: 'submit' }, 'Remove'), h('button', { type: 'button', onclick: close }, 'Cancel')));
    return form;
  });
}
