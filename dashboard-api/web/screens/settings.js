// Settings: API tokens (create, shown once; list; revoke), export and import with a dry run.
import { api, del, get, post, seg } from '../api.js';
import { busy, empty, field, fill, h, openDialog, toast, when } from '../ui.js';
import { drawPeople } from './settings_people.js';

export async function settingsScreen(main) {
  const tokens = h('section.panel', { 'aria-labelledby': 'tokens-title' });
  const exp = h('section.panel', { 'aria-labelledby': 'export-title' });
  const imp = h('section.panel', { 'aria-labelledby': 'import-title' });
  const people = h('section.panel', { 'aria-labelledby': 'people-title' });
  fill(main, h('h1', {}, 'Settings'), people, tokens, exp, imp);
  await Promise.all([drawPeople(people), drawTokens(tokens), drawExport(exp)]);
  drawImport(imp);
}

async function drawTokens(box, fresh) {
  const [list, me] = await Promise.all([get('/tokens'), get('/dashboard/session')]);
  const name = h('input', { name: 'name', required: true, placeholder: 'e.g. laptop-claude' });
  const scope = h('select', { name: 'scope' }, ['agent', 'agent:read', 'admin'].map((s) => h('option', { value: s }, s)));
  const form = h('form.row', {
    'aria-label': 'Create a token',
    onsubmit: async (e) => {
      e.preventDefault();
      const t = await busy(form, () => post('/tokens', { name: name.value.trim(), scope: scope.value }));
      if (t) drawTokens(box, t);
    },
  }, field('Name', name), field('Scope', scope), h('button.primary', { type: 'submit' }, 'Create token'));
  const live = list.filter((t) => !t.revoked_at && !(t.expires_at && new Date(t.expires_at) <= new Date()));
  fill(box, h('h2', { id: 'tokens-title' }, 'Tokens'),
    h('p.muted', {}, 'Agents use agent tokens; admin tokens and dashboard sessions manage everything.'),
    form,
    fresh ? secretOnce(fresh) : null,
    live.length ? h('div.table-wrap', {}, h('table', {},
      h('thead', {}, h('tr', {}, ['Name', 'Kind', 'Scope', 'Created', 'Last used', ''].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, live.map((t) => h('tr', { 'data-token': t.id },
        h('td', {}, t.name, t.id === me.id ? h('span.tag', {}, 'this browser') : null),
        h('td', {}, t.kind === 'dashboard' ? 'dashboard session' : t.kind === 'oauth' ? 'OAuth sign-in' : 'API token'),
        h('td', {}, t.scope), h('td', {}, when(t.created_at)), h('td', {}, when(t.last_used_at)),
        h('td', {}, h('button.danger', { type: 'button', 'aria-label': `Revoke ${t.name}`, onclick: () => revoke(t, box) }, 'Revoke'))))))) : empty('No tokens.'));
}

function revoke(t, box) {
  openDialog(`Revoke “${t.name}”?`, (close) => {
    const form = h('form.stack', {
      onsubmit: async (e) => {
        e.preventDefault();
        const ok = await busy(form, () => del('/tokens/' + seg(t.id)).then(() => true));
        if (!ok) return;
        close();
        toast(`Revoked ${t.name}`);
        if (t.kind === 'dashboard' && box.querySelector(`[data-token="${t.id}"] .tag`)) { location.reload(); return; }
        drawTokens(box);
      },
    }, h('p', {}, t.kind === 'dashboard' ? 'That browser is signed out on its next request.' : 'Everything that uses this token loses access on its next request.'),
    h('div.row', {}, h('button.danger', { type: 'submit' }, 'Revoke'), h('button', { type: 'button', onclick: close }, 'Cancel')));
    return form;
  });
}

function secretOnce(t) {
  const code = h('code', { 'data-secret': '' }, t.secret);
  return h('div.warning', { role: 'status' },
    h('p', {}, h('strong', {}, `Token “${t.name}” created. `), 'Copy its secret now: it is shown only once.'),
    h('div.secret-once', {}, code, h('button', { type: 'button', onclick: async () => {
      try { await navigator.clipboard.writeText(t.secret); toast('Copied'); } catch { toast('Copy failed: select the text and copy it', true); }
    } }, 'Copy secret')));
}

async function drawExport(box) {
  const decks = await get('/decks');
  const pick = h('select', { name: 'deck' }, h('option', { value: '' }, 'Everything'), decks.map((d) => h('option', { value: d.name }, `Deck ${d.name}`)));
  const form = h('form.row', {
    'aria-label': 'Export',
    onsubmit: async (e) => {
      e.preventDefault();
      const bundle = await busy(form, () => get('/export' + (pick.value ? '?deck=' + encodeURIComponent(pick.value) : '')));
      if (!bundle) return;
      const a = h('a', { href: URL.createObjectURL(new Blob([JSON.stringify(bundle, null, 2)], { type: 'application/json' })),
        download: `agent-deck-${pick.value || 'all'}.json` });
      document.body.append(a); a.click(); a.remove();
      toast('Export downloaded (no secret values inside)');
    },
  }, field('What', pick), h('button.primary', { type: 'submit' }, 'Download bundle'));
  fill(box, h('h2', { id: 'export-title' }, 'Export'), h('p.muted', {}, 'A bundle holds cards and decks, never secret values.'), form);
}

function drawImport(box) {
  const file = h('input', { type: 'file', name: 'bundle', accept: 'application/json,.json', required: true });
  const report = h('div', { 'aria-live': 'polite' });
  let text = '';
  const form = h('form.row', {
    'aria-label': 'Import',
    onsubmit: async (e) => {
      e.preventDefault();
      text = await file.files[0].text();
      const r = await busy(form, () => api('POST', '/import?dry_run=true', text));
      if (r) fill(report, reportView(r, true), h('div.row', {},
        h('button.primary', { type: 'button', onclick: async () => {
          try { fill(report, reportView(await api('POST', '/import', text), false)); toast('Imported'); } catch (err) { toast(err.message, true); }
        } }, 'Apply import'),
        h('button', { type: 'button', onclick: () => fill(report) }, 'Cancel')));
    },
  }, field('Bundle file', file), h('button', { type: 'submit' }, 'Check (dry run)'));
  fill(box, h('h2', { id: 'import-title' }, 'Import'),
    h('p.muted', {}, 'First a dry run reports what would change; nothing is written until you apply.'), form, report);
}

function reportView(r, dry) {
  const counts = (o) => Object.entries(o || {}).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.length : v}`).join(', ') || 'none';
  return h('div.panel', { 'data-import': dry ? 'dry-run' : 'applied' },
    h('h3', {}, dry ? 'Dry run: nothing changed yet' : 'Imported'),
    h('ul', {}, h('li', {}, 'Created: ', counts(r.created)), h('li', {}, 'Reused: ', counts(r.reused)),
      h('li', {}, 'Skipped: ', counts(r.skipped)),
      r.credentials_needing_secret?.length ? h('li', {}, 'Credentials that need a secret: ', r.credentials_needing_secret.join(', ')) : null));
}
