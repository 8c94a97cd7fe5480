// Review: the playbook changes agents proposed, one proposal with its diff preview and the
// accept/reject decision, and the feedback signals that are not proposals yet.
import { get, post, seg } from '../api.js';
import { busy, empty, errorBox, field, fill, h, openDialog, toast, warningsBox, when } from '../ui.js';

const statuses = ['open', 'accepted', 'rejected', 'stale', 'superseded'];

/** The queue: proposals filtered by status (open by default), then the signals table. */
export async function reviewScreen(main, status = 'open') {
  const [proposals, signals, playbooks] = await Promise.all([get('/proposals?status=' + seg(status)), get('/signals'), get('/playbooks')]);
  const titles = new Map(playbooks.map((p) => [p.id, p.title]));
  const pick = h('select', { 'aria-label': 'Show proposals that are', onchange: (e) => { location.hash = '#/review?status=' + e.target.value; } },
    statuses.map((s) => h('option', { value: s, selected: s === status ? true : undefined }, s)));
  const signalBox = h('div');
  fill(main, h('div.row.spread', {}, h('h1', {}, 'Review'), field('Status', pick)),
    h('p.muted', {}, 'Changes agents proposed to playbooks. Nothing changes until a person accepts.'),
    proposals.length ? h('div.table-wrap', {}, h('table', { 'aria-label': 'Proposals' },
      h('thead', {}, h('tr', {}, ['Proposal', 'Kind', 'Why', 'From', 'Proposed'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, proposals.map((p) => h('tr', { 'data-proposal': p.id },
        h('td', {}, h('a', { href: '#/proposals/' + seg(p.id), title: `Proposal ${p.id}` }, proposalTitle(p, titles))),
        h('td.nowrap', {}, p.kind),
        h('td', {}, p.rationale),
        h('td', {}, p.client_name || h('span.muted', {}, 'unnamed')),
        h('td', {}, when(p.created_at)))))))
      : empty(h('p', {}, `No ${status} proposals.`), h('p', {}, 'Agents propose playbook fixes with propose_playbook_patch; they wait here for review.')),
    h('h2', { id: 'signals-title' }, 'Signals'), signalBox);
  drawSignals(signalBox, signals);
}

/** What a proposal is about, in words: the playbook it changes (or creates) and how much. */
function proposalTitle(p, titles) {
  if (p.new_playbook) return `New playbook “${p.new_playbook.title}”`;
  const title = titles.get(p.playbook_id) || p.playbook_id || 'a playbook';
  const n = (p.ops || []).length;
  return `${title}: ${n} change${n === 1 ? '' : 's'}`;
}

function drawSignals(box, signals) {
  if (!signals.length) return fill(box, empty(h('p', {}, 'No feedback signals.'), h('p', {}, 'Corrections agents record without a fix show up here.')));
  fill(box, h('div.table-wrap', {}, h('table', { 'aria-labelledby': 'signals-title' },
    h('thead', {}, h('tr', {}, ['Signal', 'Status', 'Playbook', 'Why', 'Recorded', ''].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, signals.map((s) => h('tr', { 'data-signal': s.id },
      h('td', {}, h('code', {}, s.id)),
      h('td', {}, s.status, s.proposal_id ? [' · ', h('a', { href: '#/proposals/' + seg(s.proposal_id), 'aria-label': `Proposal of signal ${s.id}` }, 'proposal')] : ''),
      h('td', {}, s.playbook_id || ''),
      h('td', {}, s.rationale),
      h('td', {}, when(s.created_at)),
      h('td', {}, s.status !== 'open' && s.status !== 'parked' ? '' : h('button', { type: 'button', 'aria-label': 'Discard ' + s.id, onclick: async () => {
        try {
          await post('/signals/discard', { ids: [s.id] });
          toast(`Signal ${s.id} discarded`);
          drawSignals(box, await get('/signals'));
        } catch (err) { toast(err.message, true); }
      } }, 'Discard'))))))));
}

/** One proposal: what it changes against the playbook as it is now, and the decision. */
export async function proposalScreen(main, id, note) {
  const pv = await get('/proposals/' + seg(id));
  const outcome = h('div', { 'aria-live': 'polite' }, note);
  // decided redraws the page with what the decision said, and the count in the navigation.
  const decided = async (what, shown) => {
    if (what) toast(`Proposal ${id} ${what}`);
    window.dispatchEvent(new CustomEvent('proposals-changed'));
    await proposalScreen(main, id, shown);
  };
  const accept = async () => {
    fill(outcome);
    try {
      const r = await post(`/proposals/${seg(id)}/accept`);
      await decided('accepted', warningsBox(r.playbook && r.playbook.warnings));
    } catch (err) {
      if (err.status !== 409) return fill(outcome, errorBox(err));
      await decided('', [errorBox(err), h('p', {}, 'Nothing changed. ', h('a', { href: '#/review?status=stale' }, 'See stale proposals'))]);
    }
  };
  const reject = () => openDialog('Reject proposal', (close) => {
    const form = h('form.stack', { 'aria-label': 'Reject proposal', onsubmit: async (e) => {
      e.preventDefault();
      const r = await busy(form, () => post(`/proposals/${seg(id)}/reject`, { reason: form.reason.value.trim() }));
      if (r) { close(); await decided('rejected'); }
    } }, field('Reason', h('textarea', { name: 'reason', rows: 3 }), 'Optional; the agent’s signals reopen.'),
    h('div.row', {}, h('button.danger', { type: 'submit' }, 'Reject')));
    return form;
  });
  const ev = pv.evidence || {};
  fill(main,
    h('p', {}, h('a', { href: '#/review' }, '← Review')),
    h('div.row.spread', {}, h('h1', {}, `Proposal ${pv.id}`), pv.status === 'open' ? h('div.row', {},
      h('button.primary', { type: 'button', onclick: accept }, 'Accept'),
      h('button.danger', { type: 'button', onclick: reject }, 'Reject')) : null),
    outcome,
    h('p', {}, h('span.tag', { 'data-status': pv.status }, pv.status), ' ', pv.kind, pv.playbook_id ? [' · ', h('a', { href: `#/playbooks/${seg(pv.playbook_id)}/history` }, pv.playbook_id)] : '',
      ' · ', pv.client_name || 'unnamed client', ' · ', when(pv.created_at)),
    h('p', {}, pv.summary),
    pv.superseded_by ? h('p', {}, 'Replaced by ', h('a', { href: '#/proposals/' + seg(pv.superseded_by) }, pv.superseded_by)) : null,
    pv.supersedes && pv.supersedes.length ? h('p', {}, 'Replaces ', pv.supersedes.map((x, i) => [i ? ', ' : '', h('a', { href: '#/proposals/' + seg(x) }, x)])) : null,
    h('section.panel', { 'aria-label': 'Why' }, h('h2', {}, 'Why'), h('p', {}, pv.rationale),
      ev.failure_summary ? h('p', {}, h('strong', {}, 'What failed: '), ev.failure_summary) : null,
      ev.user_feedback_excerpt ? h('p', {}, h('strong', {}, 'The user said: '), ev.user_feedback_excerpt) : null,
      ev.corrected_output_hint ? h('p', {}, h('strong', {}, 'Right output: '), ev.corrected_output_hint) : null,
      pv.reason ? h('p', {}, h('strong', {}, 'Decision: '), pv.reason) : null),
    pv.conflict ? h('div.warning', { role: 'status', 'data-conflict': '' }, h('strong', {}, 'No longer applies: '), pv.conflict.message,
      pv.conflict.hint ? h('div.hint', {}, pv.conflict.hint) : null) : null,
    warningsBox(pv.warnings),
    h('h2', {}, 'Body'), pv.diff ? unified(pv.diff) : h('p.muted', {}, 'unchanged'),
    h('h2', {}, 'Triggers'), triggers(pv.triggers_before || [], pv.triggers_after || []));
}

/** A unified diff: removed lines red, added green; each keeps its - or + as a text marker. */
function unified(text) {
  return h('div.diff', { role: 'group', 'aria-label': 'Changes to the body, current to proposed' },
    text.replace(/\n$/, '').split('\n').map((l) => {
      if (l.startsWith('+++') || l.startsWith('---') || l.startsWith('@@')) return h('div.muted', {}, l);
      if (l.startsWith('+')) return h('div.add', {}, l);
      if (l.startsWith('-')) return h('div.del', {}, l);
      return h('div', {}, l);
    }));
}

function triggers(before, after) {
  const list = (items, other, mark, cls) => items.length
    ? h('ul', {}, items.map((t) => other.includes(t) ? h('li', {}, t) : h('li.' + cls, {}, `${mark} ${t}`)))
    : h('p.muted', {}, 'none');
  if (before.join('\n') === after.join('\n')) return h('p.muted', {}, 'unchanged: ', before.join(', ') || 'none');
  return h('div.two', {}, h('section', { 'aria-label': 'Triggers before' }, h('h3', {}, 'Before'), list(before, after, '−', 'del')),
    h('section', { 'aria-label': 'Triggers after' }, h('h3', {}, 'After'), list(after, before, '+', 'add')));
}
