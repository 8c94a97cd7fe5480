// A small, safe markdown preview: headings, lists, code blocks, inline code, bold, italics and
// links, built as DOM nodes (never innerHTML), so a playbook cannot inject markup.
import { h } from './ui.js';

function inline(text) {
  const out = [];
  const re = /(`[^`]+`|\*\*[^*]+\*\*|\*[^*]+\*|\[[^\]]+\]\((https?:[^)\s]+)\))/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    out.push(text.slice(last, m.index));
    const t = m[0];
    if (t.startsWith('`')) out.push(h('code', {}, t.slice(1, -1)));
    else if (t.startsWith('**')) out.push(h('strong', {}, t.slice(2, -2)));
    else if (t.startsWith('*')) out.push(h('em', {}, t.slice(1, -1)));
    else out.push(h('a', { href: m[2], rel: 'noopener noreferrer', target: '_blank' }, t.slice(1, t.indexOf(']'))));
    last = m.index + t.length;
  }
  out.push(text.slice(last));
  return out;
}

export function markdown(src) {
  const nodes = [];
  const ls = src.split('\n');
  for (let i = 0; i < ls.length; i++) {
    const l = ls[i];
    if (l.startsWith('```')) {
      const code = [];
      while (++i < ls.length && !ls[i].startsWith('```')) code.push(ls[i]);
      nodes.push(h('pre', {}, code.join('\n')));
    } else if (/^#{1,6} /.test(l)) {
      const n = Math.min(l.indexOf(' ') + 2, 6);
      nodes.push(h('h' + n, {}, inline(l.replace(/^#+ /, ''))));
    } else if (/^\s*([-*]|\d+\.) /.test(l)) {
      const ordered = /^\s*\d+\. /.test(l);
      const items = [];
      while (i < ls.length && /^\s*([-*]|\d+\.) /.test(ls[i])) items.push(h('li', {}, inline(ls[i++].replace(/^\s*([-*]|\d+\.) /, ''))));
      i--;
      nodes.push(h(ordered ? 'ol' : 'ul', {}, items));
    } else if (l.trim()) {
      nodes.push(h('p', {}, inline(l)));
    }
  }
  return nodes;
}
