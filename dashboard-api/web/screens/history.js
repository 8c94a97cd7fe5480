// Playbook history: the earlier versions, a line diff against the current text, and restore.
import { get, post, seg } from '../api.js';
import { empty, fill, h, toast, when, warningsBox } from '../ui.js';
import { playbookForm } from './collection.js';

export async function historyScreen(main, ref, note) {
  const [pb, versions] = await Promise.all([get('/playbooks/' + seg(ref)), get(`/playbooks/${seg(ref)}/versions`)]);
  const reload = (w) => historyScreen(main, pb.id, w);
  const view = h('section.panel', { 'aria-live': 'polite', 'aria-label': 'Selected version' });
  const show = (v) => {
    for (const b of main.querySelectorAll('[data-version]')) b.setAttribute('aria-pressed', String(b.dataset.version === String(v.version)));
    fill(view, h('div.row.spread', {}, h('h2', {}, `Version ${v.version} → current`),
      h('button.primary', { type: 'button', onclick: async () => {
        try {
          const r = await post(`/playbooks/${seg(pb.id)}/versions/${v.version}/restore`);
          toast(`Restored version ${v.version}`);
          reload(r.warnings);
        } catch (err) { toast(err.message, true); }
      } }, `Restore version ${v.version}`)),
    h('p.muted', {}, `Saved by ${v.actor} `, when(v.created_at), ` · title “${v.snapshot.title}”`),
    fieldDiff('Triggers', v.snapshot.triggers.join('\n'), pb.triggers.join('\n')),
    fieldDiff('Body', v.snapshot.body, pb.body));
  };
  fill(main,
    h('p', {}, h('a', { href: '#/collection' }, '← Collection')),
    h('div.row.spread', {}, h('h1', {}, `History of ${pb.title}`),
      h('button', { type: 'button', onclick: () => playbookForm(pb, () => reload()) }, 'Edit playbook')),
    warningsBox(note),
    versions.length ? h('div.two', {},
      h('section', { 'aria-label': 'Versions' }, h('h2', {}, 'Earlier versions'),
        h('ol.cards', {}, versions.map((v) => h('li', {},
          h('button', { type: 'button', 'data-version': v.version, 'aria-pressed': 'false', onclick: () => show(v) }, `Version ${v.version}`),
          h('span.muted', {}, v.actor, ' · ', when(v.created_at)))))),
      view)
      : empty(h('p', {}, 'No earlier versions yet.'), h('p', {}, 'Every change to this playbook keeps the version before it here.')));
  if (versions.length) show(versions[0]);
}

function fieldDiff(title, before, after) {
  return [h('h3', {}, title), before === after ? h('p.muted', {}, 'unchanged') : diff(before.split('\n'), after.split('\n'))];
}

/** A line diff (longest common subsequence): removed lines red, added green. */
function diff(a, b) {
  const n = a.length, m = b.length;
  const L = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i][j] = a[i] === b[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const rows = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) { rows.push(h('div', {}, '  ' + a[i])); i++; j++; }
    else if (j < m && (i === n || L[i][j + 1] >= L[i + 1][j])) { rows.push(h('div.add', {}, '+ ', b[j++])); }
    else { rows.push(h('div.del', {}, '- ', a[i++])); }
  }
  return h('div.diff', { role: 'group', 'aria-label': 'Differences from this version to the current one' }, rows);
}
