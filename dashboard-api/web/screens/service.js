// Service detail: health, check now, the downstream tools with on/off switches, and a form
// built from a tool's JSON Schema that calls it and shows the result. A remote service also shows
// its sign-in state, with Connect (opens the authorization server's consent page) and Disconnect.
import { get, post, put, seg } from '../api.js';
import { busy, empty, errorBox, field, fill, h, health, toast, when } from '../ui.js';
import { callCharts } from '../charts.js';

export async function serviceScreen(main, ref) {
  const svc = await get('/services/' + seg(ref));
  const healthBox = h('div.panel', { 'aria-labelledby': 'health-title' });
  const authBox = svc.type === 'local-mcp' ? null : h('section.panel', { 'aria-labelledby': 'auth-title' });
  const toolsBox = h('section', { 'aria-labelledby': 'tools-title' });
  const tryBox = h('section.panel', { 'aria-labelledby': 'try-title' });
  const heldBox = h('section.panel', { 'aria-labelledby': 'held-title' });
  const overrideBox = h('section.panel', { 'aria-labelledby': 'override-title' });
  fill(main,
    h('p', {}, h('a', { href: '#/collection' }, '← Collection')),
    h('h1', {}, svc.name),
    h('p.muted', {}, h('code', {}, svc.id), ' · ', svc.type === 'local-mcp' ? `local: ${svc.local_command} ${(svc.local_args || []).join(' ')}` : svc.url),
    svc.description ? h('p', {}, svc.description) : null,
    h('p.muted', { 'data-service-facts': '' }, `Timeout ${svc.timeout_seconds ? svc.timeout_seconds + ' s' : 'the server default'}`,
      ' · ', svc.pin_tools ? 'tool definitions pinned: a changed tool is held until approved' : 'tool definitions not pinned',
      ' · ', svc.credential_id ? ['credential ', h('code', {}, svc.credential_id)] : 'no credential'),
    healthBox, authBox, heldBox, toolsBox, overrideBox, tryBox,
    callCharts('Calls per tool', { service: svc.id, group_by: 'tool' }, { service: svc.name }));
  drawHealth(healthBox, svc);
  // A finished sign-in changes what the service lists: draw the screen again.
  if (authBox) await loadAuth(authBox, svc, null, () => serviceScreen(main, ref));
  const reload = async () => { await loadHeld(svc, heldBox, reload); await loadTools(svc, toolsBox, tryBox, overrideBox, reload); };
  await reload();
}

// The one view of what is held: every definition any connection (the service's own credential
// or a deck's) found changed or new, with what changed, where it was seen and its hash; Approve
// pins exactly that definition.
async function loadHeld(svc, box, reload) {
  let held;
  try {
    held = await get(`/services/${seg(svc.id)}/held`);
  } catch (err) {
    fill(box, h('h2', { id: 'held-title' }, 'Held tools'), errorBox(err));
    return;
  }
  const diff = (d) => {
    const o = d.approved || {}; const n = d.definition || {};
    const rows = [];
    for (const k of ['title', 'description', 'annotations', 'inputSchema', 'outputSchema']) {
      const a = o[k] === undefined ? '' : JSON.stringify(o[k]); const b = n[k] === undefined ? '' : JSON.stringify(n[k]);
      if (a === b) continue;
      rows.push(h('tr', {}, h('th', { scope: 'row' }, k), h('td.diff-old', {}, a ? h('code', {}, a) : '—'), h('td.diff-new', {}, b ? h('code', {}, b) : '—')));
    }
    return h('div.table-wrap', {}, h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Field'), h('th', {}, 'Approved'), h('th', {}, 'Held'))), h('tbody', {}, rows)));
  };
  const items = held.map((d) => h('article.held', { 'data-held': d.name, 'aria-label': `Held ${d.name}` },
    h('h3', {}, h('code', {}, d.name), ' · ', d.change),
    h('p.muted', {}, 'Seen on ', (d.seen_on || []).join(', '), ' · hash ', h('code', {}, d.hash)),
    diff(d),
    h('button.primary', { type: 'button', 'aria-label': `Approve this definition of ${d.name}`, onclick: async () => {
      try {
        await post(`/services/${seg(svc.id)}/approve`, { tools: [d.name], hashes: [d.hash] });
        toast(`Approved ${d.name}`);
        await reload();
      } catch (err) { toast(err.message, true); }
    } }, 'Approve this definition')));
  fill(box, h('h2', { id: 'held-title' }, `Held tools (${held.length})`),
    held.length ? h('div', {}, items) : h('p.muted', {}, svc.pin_tools === false
      ? 'Tool pinning is off for this service: nothing is held.'
      : 'Nothing is held: every tool matches its approved definition on every connection.'));
}

// The override editor: what agents see of one tool instead of the downstream's own title,
// description and annotations. Pins keep comparing the downstream's own definition.
function drawOverride(svc, tools, box, reload) {
  const pick = h('select', { name: 'tool', 'aria-label': 'Tool to override' }, tools.map((t) => h('option', { value: t.name }, t.name)));
  const title = h('input', { name: 'title', 'aria-label': 'Title agents see' });
  const desc = h('textarea', { name: 'description', rows: 3, 'aria-label': 'Description agents see' });
  const tri = (name, label) => h('select', { name, 'aria-label': label },
    h('option', { value: '' }, 'as the server says'), h('option', { value: 'true' }, 'true'), h('option', { value: 'false' }, 'false'));
  const ro = tri('read_only_hint', 'readOnlyHint agents see');
  const de = tri('destructive_hint', 'destructiveHint agents see');
  const ow = tri('open_world_hint', 'openWorldHint agents see');
  const show = () => {
    const o = (svc.tool_overrides || {})[pick.value] || {};
    title.value = o.title || ''; desc.value = o.description || '';
    for (const [el, k] of [[ro, 'read_only_hint'], [de, 'destructive_hint'], [ow, 'open_world_hint']]) el.value = o[k] === undefined ? '' : String(o[k]);
  };
  // The tool chosen stays chosen when the screen is drawn again after a save.
  if (tools.some((t) => t.name === svc.overridePick)) pick.value = svc.overridePick;
  pick.addEventListener('change', () => { svc.overridePick = pick.value; show(); });
  show();
  const body = () => {
    const out = {};
    if (title.value.trim()) out.title = title.value;
    if (desc.value.trim()) out.description = desc.value;
    for (const el of [ro, de, ow]) if (el.value) out[el.name] = el.value === 'true';
    return out;
  };
  const save = (clear) => async (ev) => {
    ev.preventDefault();
    try {
      const card = await put(`/services/${seg(svc.id)}/tools/${seg(pick.value)}/override`, clear ? {} : body());
      svc.tool_overrides = card.tool_overrides;
      svc.overridePick = pick.value;
      toast(clear ? `Override of ${pick.value} cleared` : `Override of ${pick.value} saved`);
      await reload();
    } catch (err) { toast(err.message, true); }
  };
  const form = h('form', { onsubmit: save(false) },
    field('Tool', pick), field('Title', title), field('Description', desc),
    field('Read-only', ro), field('Destructive', de), field('Open world', ow),
    h('p', {}, h('button.primary', { type: 'submit' }, 'Save override'), ' ',
      h('button', { type: 'button', onclick: save(true) }, 'Clear override')));
  fill(box, h('h2', { id: 'override-title' }, 'Override what agents see'),
    h('p.muted', {}, 'Agents see these in place of the server\'s own text; read-only lets agent:read tokens call the tool. A tool the server changes is still held.'),
    form);
}

function drawHealth(box, svc) {
  const hl = svc.health || {};
  const check = h('button.primary', { type: 'button', onclick: async () => {
    check.disabled = true;
    try {
      svc.health = await post(`/services/${seg(svc.id)}/check`);
      toast(`Checked ${svc.name}: ${svc.health.status}`);
    } catch (err) {
      toast(err.message, true);
      svc = await get('/services/' + seg(svc.id));
    }
    drawHealth(box, svc);
  } }, 'Check now');
  fill(box, h('div.row.spread', {}, h('h2', { id: 'health-title' }, 'Health'), check),
    h('p', {}, health(hl), ' · last check ', when(hl.last_checked_at), ' · last success ', when(hl.last_success_at)),
    hl.last_error ? h('div.error', {}, hl.last_error) : null,
    hl.stderr ? [h('h3', {}, 'Standard error (tail, secrets masked)'), h('pre', {}, hl.stderr)] : null);
}

const authWords = { none: 'Not signed in', connected: 'Connected', needs_sign_in: 'Sign-in needed', error: 'Sign-in failed' };
const authColours = { none: 'unknown', connected: 'healthy', needs_sign_in: 'auth_required', error: 'unhealthy' };

/**
 * The service's sign-in state; while a started sign-in waits for its callback, polls until it
 * ends, then calls done.
 */
async function loadAuth(box, svc, link, done) {
  let st;
  try {
    st = await get(`/services/${seg(svc.id)}/auth`);
  } catch (err) {
    fill(box, h('h2', { id: 'auth-title' }, 'Sign-in'), errorBox(err));
    return;
  }
  if (!box.isConnected && box.dataset.drawn) return; // the person left the screen
  box.dataset.drawn = '1';
  drawAuth(box, svc, st, link, done);
  if (st.pending) box.dataset.waiting = '1';
  else if (box.dataset.waiting) { delete box.dataset.waiting; if (done) done(); return; }
  if (st.pending) setTimeout(() => { if (box.isConnected) loadAuth(box, svc, link, done); }, 1000);
}

function drawAuth(box, svc, st, link, done) {
  const state = st.state || 'none';
  const badge = h('span.health.' + (authColours[state] || 'unknown'), { 'data-auth': state }, authWords[state] || state);
  const connect = h('button.primary', { type: 'button', onclick: async () => {
    connect.disabled = true;
    try {
      const started = await post(`/services/${seg(svc.id)}/connect`, {});
      window.open(started.authorization_url, '_blank', 'noopener');
      toast(`Finish signing in to ${svc.name} in the new window`);
      box.dataset.waiting = '1'; // the sign-in may finish before the state is first read
      await loadAuth(box, svc, started.authorization_url, done);
    } catch (err) {
      toast(err.message, true);
      connect.disabled = false;
    }
  } }, state === 'connected' ? 'Reconnect' : 'Connect');
  const disconnect = state === 'none' ? null : h('button', { type: 'button', onclick: async () => {
    disconnect.disabled = true;
    try {
      await post(`/services/${seg(svc.id)}/disconnect`);
      toast(`Disconnected ${svc.name}`);
      await loadAuth(box, svc, null, done);
    } catch (err) {
      toast(err.message, true);
      disconnect.disabled = false;
    }
  } }, 'Disconnect');
  const facts = [];
  if (state === 'connected') {
    facts.push(h('p', { 'data-auth-facts': '' }, st.expires_at ? ['Expires ', h('time', { datetime: st.expires_at }, new Date(st.expires_at).toLocaleString())] : 'No expiry',
      ' · scopes ', st.scopes && st.scopes.length ? st.scopes.map((s, i) => [i ? ' ' : '', h('code', {}, s)]) : h('span.muted', {}, 'none')));
  }
  fill(box, h('div.row.spread', {}, h('h2', { id: 'auth-title' }, svc.personal ? 'Your sign-in' : 'Sign-in'), h('div.row', {}, disconnect, connect)),
    svc.personal ? h('p.muted', { 'data-auth-personal': '' }, 'Each person signs in with their own account: your calls use your sign-in, and no one else\'s.') : null,
    h('p', {}, badge, st.pending ? h('span.muted', {}, ' · waiting for the sign-in to finish')
      : state === 'none' && (svc.health || {}).status === 'auth_required' ? h('span.muted', {}, ' · the service asks for a sign-in: Connect opens its sign-in page') : null),
    facts,
    st.error ? h('div.error', {}, st.error) : null,
    st.pending && link ? h('p.muted', {}, 'No window opened? ', h('a', { href: link, target: '_blank', rel: 'noopener noreferrer' }, 'Open the sign-in page')) : null);
}

async function loadTools(svc, box, tryBox, overrideBox, reload) {
  let tools;
  try {
    tools = await get(`/services/${seg(svc.id)}/tools`);
  } catch (err) {
    fill(box, h('h2', { id: 'tools-title' }, 'Tools'), errorBox(err));
    fill(tryBox, h('h2', { id: 'try-title' }, 'Try a tool'), h('p.muted', {}, 'The tools could not be listed.'));
    return;
  }
  const disabled = new Set(svc.disabled_tools || []);
  const rows = tools.map((t) => {
    const def = t.tool || {};
    const sw = h('input', { type: 'checkbox', role: 'switch', checked: t.enabled, 'aria-label': `Enable ${t.name}` });
    sw.addEventListener('change', async () => {
      if (sw.checked) disabled.delete(t.name); else disabled.add(t.name);
      try {
        await put(`/services/${seg(svc.id)}/tool-settings`, { disabled_tools: [...disabled] });
        toast(`${t.name} ${sw.checked ? 'enabled' : 'disabled'}`);
      } catch (err) { sw.checked = !sw.checked; toast(err.message, true); }
    });
    const approve = t.held ? h('button', { type: 'button', onclick: async () => {
      try { await post(`/services/${seg(svc.id)}/approve`, { tools: [t.name] }); toast(`Approved ${t.name}`); reload(); } catch (err) { toast(err.message, true); }
    } }, 'Approve') : null;
    return h('tr', { 'data-tool': t.name }, h('td', {}, h('code', {}, t.name)), h('td', {}, def.description || ''),
      h('td', {}, t.held ? h('span.health.auth_required', {}, 'Held: ', t.held_reason || 'changed') : null, approve),
      h('td', {}, h('label.switch', {}, sw, h('span', {}, t.enabled ? 'On' : 'Off'))));
  });
  fill(box, h('h2', { id: 'tools-title' }, `Tools (${tools.length})`),
    tools.length ? h('div.table-wrap', {}, h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'Tool'), h('th', {}, 'Description'), h('th', {}, 'State'), h('th', {}, 'Enabled'))), h('tbody', {}, rows)))
      : empty('This server lists no tools. Check its health above.'));
  for (const sw of box.querySelectorAll('input[role=switch]')) sw.addEventListener('change', () => { sw.nextElementSibling.textContent = sw.checked ? 'On' : 'Off'; });
  drawTry(svc, tools, tryBox);
  if (overrideBox) drawOverride(svc, tools, overrideBox, reload);
}

function drawTry(svc, tools, box) {
  const pick = h('select', { 'aria-label': 'Tool to try' }, tools.map((t) => h('option', { value: t.name }, t.name)));
  const formBox = h('div');
  const out = h('div', { 'aria-live': 'polite' });
  const draw = () => {
    const t = tools.find((x) => x.name === pick.value);
    fill(formBox, t ? toolForm(svc, t, out) : null);
    fill(out);
  };
  pick.addEventListener('change', draw);
  fill(box, h('h2', { id: 'try-title' }, 'Try a tool'), tools.length ? field('Tool', pick) : h('p.muted', {}, 'No tool to try.'), formBox, out);
  draw();
}

/** A form from the tool's input schema: one control per property. */
function toolForm(svc, tool, out) {
  const schema = (tool.tool && tool.tool.inputSchema) || {};
  const props = schema.properties || {};
  const required = new Set(schema.required || []);
  const controls = Object.entries(props).map(([name, p]) => [name, p, control(name, p, required.has(name))]);
  const form = h('form.stack', {
    onsubmit: async (e) => {
      e.preventDefault();
      const res = await busy(form, () => {
        const args = {};
        for (const [name, p, el] of controls) {
          const v = readControl(name, p, el);
          if (v !== undefined) args[name] = v;
        }
        return post(`/services/${seg(svc.id)}/call`, { tool_name: tool.name, arguments: args });
      });
      if (res) fill(out, result(res));
    },
  }, controls.map(([name, p, el]) => field(name + (required.has(name) ? ' (required)' : ''), el, p.description)),
  h('div.row', {}, h('button.primary', { type: 'submit' }, `Call ${tool.name}`)));
  return form;
}

function control(name, p, required) {
  const type = Array.isArray(p.type) ? p.type.find((t) => t !== 'null') : p.type;
  if (p.enum) return h('select', { name, required }, required ? null : h('option', { value: '' }, '—'), p.enum.map((v) => h('option', { value: JSON.stringify(v) }, String(v))));
  if (type === 'boolean') return h('input', { type: 'checkbox', name, checked: p.default === true });
  if (type === 'number' || type === 'integer') return h('input', { type: 'number', name, required, step: type === 'integer' ? '1' : 'any', value: p.default ?? '' });
  if (type === 'object' || type === 'array') return h('textarea', { name, required, placeholder: type === 'array' ? '[ … ] (JSON)' : '{ … } (JSON)' }, p.default ? JSON.stringify(p.default) : '');
  return h('input', { name, required, value: p.default ?? '' });
}

function readControl(name, p, el) {
  const type = Array.isArray(p.type) ? p.type.find((t) => t !== 'null') : p.type;
  if (p.enum) return el.value === '' ? undefined : JSON.parse(el.value);
  if (type === 'boolean') return el.checked;
  if (el.value === '') return undefined;
  if (type === 'number' || type === 'integer') return Number(el.value);
  if (type === 'object' || type === 'array') {
    try { return JSON.parse(el.value); } catch { throw new Error(`${name}: expected JSON (${type})`); }
  }
  return el.value;
}

/** A CallToolResult: text, images, other content as JSON, structured content, isError. */
function result(res) {
  const items = (res.content || []).map((c) => {
    if (c.type === 'text') return h('pre', {}, c.text);
    if (c.type === 'image' && /^image\/(png|jpeg|gif|webp)$/.test(c.mimeType || '')) return h('img', { src: `data:${c.mimeType};base64,${c.data}`, alt: 'Image returned by the tool' });
    return h('pre', {}, JSON.stringify(c, null, 2));
  });
  return h('div.panel' + (res.isError ? '.error' : ''), { 'data-result': res.isError ? 'error' : 'ok' },
    h('h3', {}, res.isError ? 'The tool reported an error (isError)' : 'Result'), items,
    res.structuredContent ? [h('h3', {}, 'Structured content'), h('pre', {}, JSON.stringify(res.structuredContent, null, 2))] : null);
}
