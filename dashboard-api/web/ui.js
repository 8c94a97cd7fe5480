// Small DOM helpers shared by the screens: element building, dialogs, messages.

/** h('tag.class', {attr: v, onclick: fn}, ...children) builds an element; strings become text. */
export function h(spec, attrs = {}, ...children) {
  const [tag, ...classes] = spec.split('.');
  const el = document.createElement(tag || 'div');
  if (classes.length) el.className = classes.join(' ');
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'value') el.value = v;
    else if (k === 'checked') el.checked = !!v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces el's children. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A short message in the corner, read out by screen readers. */
export function toast(text, bad = false) {
  const t = h('div.toast' + (bad ? '.bad' : ''), {}, text);
  document.getElementById('toasts').append(t);
  setTimeout(() => t.remove(), 5000);
}

/** An error box for an API error, listing the playbooks of a dependency refusal. */
export function errorBox(err) {
  const d = err.details || {};
  const deps = Array.isArray(d.playbooks) ? d.playbooks : [];
  return h('div.error', { role: 'alert' },
    h('strong', {}, err.code ? err.code.replaceAll('_', ' ').toLowerCase() + ': ' : ''), err.message,
    d.hint ? h('div.hint', {}, d.hint) : null,
    deps.length ? h('ul', { 'aria-label': 'Playbooks that block this' },
      deps.map((p) => h('li', {}, typeof p === 'string' ? p : `${p.title} (${p.id})`))) : null);
}

/** Warnings of a write (trigger conflicts, dependent playbooks); ids the message names are not repeated. */
export function warningsBox(warnings) {
  if (!warnings || !warnings.length) return null;
  return h('div.warning', { role: 'status' }, h('strong', {}, 'Warnings'),
    h('ul', {}, warnings.map((w) => {
      const more = (w.playbooks || []).filter((id) => !String(w.message).includes(id));
      return h('li', {}, w.message, more.length ? ` (${more.join(', ')})` : '');
    })));
}

/** Asks before an action: resolves true when the person confirms, false when not. */
export function confirmDialog(title, content, action, danger = true) {
  return new Promise((resolve) => {
    let answered = false;
    const answer = (yes, close) => { answered = true; close(); resolve(yes); };
    const { dialog } = openDialog(title, (close) => h('form.stack', {
      onsubmit: (e) => { e.preventDefault(); answer(true, close); },
    }, content, h('div.row', {}, h('button' + (danger ? '.danger' : '.primary'), { type: 'submit' }, action),
      h('button', { type: 'button', onclick: () => answer(false, close) }, 'Cancel'))));
    dialog.addEventListener('close', () => { if (!answered) resolve(false); });
  });
}

/** Health shown as colour plus text. */
export function health(hl) {
  const status = (hl && hl.status) || 'unknown';
  const words = { healthy: 'Healthy', unhealthy: 'Unhealthy', auth_required: 'Sign-in needed', unknown: 'Not checked yet' };
  return h('span.health.' + status, { 'data-health': status }, words[status] || status);
}

/** Opens a modal dialog with a title and content; returns {dialog, close}. */
export function openDialog(title, build) {
  const id = 'dlg-' + Math.random().toString(36).slice(2);
  const dialog = h('dialog', { 'aria-labelledby': id });
  const close = () => { dialog.close(); dialog.remove(); };
  fill(dialog, h('div.row.spread', {}, h('h2', { id }, title),
    h('button.ghost', { type: 'button', 'aria-label': 'Close', onclick: close }, '✕')), build(close));
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  return { dialog, close };
}

/** A labelled field: label text, control, optional hint. */
export function field(text, control, hint) {
  return h('label', {}, text, control, hint ? h('span.hint', {}, hint) : null);
}

/** Runs an async form action with its button disabled, showing the error inside the form. */
export async function busy(form, fn) {
  const button = form.querySelector('button[type=submit]');
  const old = form.querySelector('.error');
  if (old) old.remove();
  if (button) button.disabled = true;
  try {
    return await fn();
  } catch (err) {
    form.append(errorBox(err));
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}

/** Lines of a textarea, trimmed, without blanks. */
export const lines = (s) => s.split('\n').map((l) => l.trim()).filter(Boolean);

/** Relative time ("3 min ago") with the full time as a tooltip. */
export function when(ts) {
  if (!ts) return h('span.muted', {}, 'never');
  const d = new Date(ts);
  const s = Math.round((Date.now() - d.getTime()) / 1000);
  const text = s < 60 ? 'just now' : s < 3600 ? `${Math.floor(s / 60)} min ago`
    : s < 86400 ? `${Math.floor(s / 3600)} h ago` : d.toLocaleDateString();
  return h('time', { datetime: d.toISOString(), title: d.toLocaleString() }, text);
}

/** The empty state of a list: what is missing and what to do next. */
export const empty = (...children) => h('div.empty', {}, ...children);

/**
 * Nodes of HTML the server already sanitized (markdown previews). Parsed in an inert document,
 * so nothing in it runs while parsing; the page's CSP refuses scripts and inline handlers anyway.
 */
export function sanitizedHTML(html) {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  return [...doc.body.childNodes].map((n) => document.adoptNode(n));
}
