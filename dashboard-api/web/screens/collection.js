// Collection: every service, credential and playbook as a card; filter; create, edit, delete.
import { del, get, patch, post, seg } from '../api.js';
import { busy, empty, errorBox, field, fill, h, health, lines, openDialog, sanitizedHTML, toast, warningsBox } from '../ui.js';

const kinds = { service: 'Service', credential: 'Credential', playbook: 'Playbook' };

/**
 * The collection screen. drawn, when given, is what the server read for the page that already
 * shows this screen (the same markup as below, from the same REST reads): the screen then takes
 * that markup over as it is, without reading or drawing again.
 */
export async function collectionScreen(main, drawn) {
  const [services, credentials, playbooks] = drawn ? [drawn.services, drawn.credentials, drawn.playbooks]
    : await Promise.all([get('/services'), get('/credentials'), get('/playbooks')]);
  const cards = [
    ...services.map((s) => ({ type: 'service', id: s.id, name: s.name, item: s })),
    ...credentials.map((c) => ({ type: 'credential', id: c.id, name: c.label, item: c })),
    ...playbooks.map((p) => ({ type: 'playbook', id: p.id, name: p.title, item: p })),
  ];
  const byKey = new Map(cards.map((c) => [`${c.type}:${c.id}`, c]));
  const reload = () => collectionScreen(main);
  const forms = { service: (it) => serviceForm(it, reload, credentials), credential: (it) => credentialForm(it, reload),
    playbook: (it) => playbookForm(it, reload) };
  const screen = drawn ? [...main.children] : [
    h('div.row.spread', {}, h('h1', {}, 'Collection'),
      h('div.row', {}, Object.entries(kinds).map(([v, t]) => h('button.primary', { type: 'button', 'data-new': v }, 'New ' + t.toLowerCase())))),
    h('div.row.panel', { role: 'search' },
      h('select', { 'aria-label': 'Card type' },
        h('option', { value: '' }, 'All cards'), Object.entries(kinds).map(([v, t]) => h('option', { value: v }, t + 's'))),
      h('input', { type: 'search', placeholder: 'Filter by name, id, tag…', 'aria-label': 'Filter cards' })),
    h('div.grid', { 'aria-live': 'polite' }),
  ];
  const [head, panel, grid] = screen;
  const typeSel = panel.querySelector('select');
  const text = panel.querySelector('input');
  const draw = () => {
    const words = text.value.toLowerCase().split(/\s+/).filter(Boolean);
    const shown = cards.filter((c) => (!typeSel.value || c.type === typeSel.value) &&
      words.every((w) => JSON.stringify(c.item).toLowerCase().includes(w)));
    if (!cards.length) {
      return fill(grid, empty(h('p', {}, 'Your collection is empty.'),
        h('p', {}, 'Add a service (an MCP server), a credential (an API key) or a playbook to get started.')));
    }
    fill(grid, shown.length ? shown.map(cardView) : empty('No card matches this filter.'));
    // The first card's title is what the first-paint benchmark times (Element Timing).
    grid.querySelector('article h3')?.setAttribute('elementtiming', 'first-card');
  };
  typeSel.addEventListener('change', draw);
  text.addEventListener('input', draw);
  // One listener for the buttons of every card, drawn here or by the server.
  head.addEventListener('click', (e) => {
    const b = e.target.closest('button[data-new]');
    if (b) forms[b.dataset.new](null);
  });
  grid.addEventListener('click', (e) => {
    const b = e.target.closest('button[data-action]');
    const card = b && byKey.get(`${b.closest('[data-card]')?.dataset.type}:${b.closest('[data-card]')?.dataset.card}`);
    if (!card) return;
    if (b.dataset.action === 'edit') forms[card.type](card.item);
    else removeCard(card, reload);
  });
  if (!drawn) {
    fill(main, screen);
    draw();
  } else if (typeSel.value || text.value) {
    draw(); // the browser kept a filter from before a reload: show what it asks for
  }
}

/** A card as the server draws it too (page/collection.html): keep the two the same. */
function cardView(c) {
  const it = c.item;
  const body = {
    service: () => [h('p.muted', {}, it.type === 'local-mcp' ? `local: ${it.local_command}` : it.url),
      it.description ? h('p', {}, it.description) : null, health(it.health)],
    credential: () => [h('p', {}, h('code', {}, it.env_name), ' · ', it.scheme),
      h('p', {}, (it.tags || []).map((t) => h('span.tag', {}, t))),
      h('p.muted', {}, it.has_secret ? 'Secret set (never shown)' : 'No secret yet')],
    playbook: () => [h('p', {}, (it.triggers || []).map((t) => h('span.tag', {}, t))),
      h('p.muted', {}, `${it.body.length} characters`)],
  }[c.type]();
  return h('article.card', { 'aria-label': `${kinds[c.type]} ${c.name}`, 'data-card': c.id, 'data-type': c.type },
    h('span.kind', {}, kinds[c.type]), h('h3', {}, c.name), h('p.muted', {}, h('code', {}, c.id)), body,
    h('div.actions', {},
      c.type === 'service' ? h('a.button', { href: '#/services/' + seg(c.id), 'aria-label': `Open ${c.name}` }, 'Open') : null,
      h('button', { type: 'button', 'aria-label': `Edit ${c.name}`, 'data-action': 'edit' }, 'Edit'),
      c.type === 'playbook' ? h('a.button', { href: `#/playbooks/${seg(c.id)}/history`, 'aria-label': `History of ${c.name}` }, 'History') : null,
      h('button.danger', { type: 'button', 'aria-label': `Delete ${c.name}`, 'data-action': 'delete' }, 'Delete')));
}

function removeCard(c, reload) {
  openDialog(`Delete ${kinds[c.type].toLowerCase()} “${c.name}”?`, (close) => {
    const form = h('form.stack', {
      onsubmit: async (e) => {
        e.preventDefault();
        const done = await busy(form, () => del(`/${c.type}s/${seg(c.id)}`).then(() => true));
        if (done) { close(); toast(`Deleted ${c.name}`); reload(); }
      },
    }, h('p', {}, 'This removes the card from the collection and from every deck.'),
    h('div.row', {}, h('button.danger', { type: 'submit' }, 'Delete'), h('button', { type: 'button', onclick: close }, 'Cancel')));
    return form;
  });
}

/** "Name: value" lines ⇄ an object. */
const toPairs = (obj, sep) => Object.entries(obj || {}).map(([k, v]) => `${k}${sep}${v}`).join('\n');
function fromPairs(text, sep, what) {
  const out = {};
  for (const l of lines(text)) {
    const i = l.indexOf(sep);
    if (i <= 0) throw new Error(`${what}: write each line as NAME${sep.trim() === ':' ? ': ' : '='}value (got “${l}”)`);
    out[l.slice(0, i).trim()] = l.slice(i + 1).trim();
  }
  return out;
}

function serviceForm(svc, reload, credentials) {
  openDialog(svc ? `Edit service ${svc.name}` : 'New service', (close) => {
    const local = h('input', { type: 'radio', name: 'stype', value: 'local-mcp', checked: svc?.type === 'local-mcp' });
    const remote = h('input', { type: 'radio', name: 'stype', value: 'mcp', checked: !svc || svc.type === 'mcp', disabled: !!svc && svc.type !== 'mcp' });
    if (svc) local.disabled = svc.type !== 'local-mcp';
    const f = {
      name: h('input', { name: 'name', required: true, value: svc?.name || '' }),
      description: h('input', { name: 'description', value: svc?.description || '' }),
      url: h('input', { name: 'url', type: 'url', value: svc?.url || '', placeholder: 'https://example.com/mcp' }),
      transport: h('select', { name: 'transport' }, ['auto', 'streamable_http', 'sse'].map((t) => h('option', { value: t }, t))),
      headers: h('textarea', { name: 'headers', placeholder: 'Authorization: Bearer …' }, toPairs(svc?.headers, ': ')),
      command: h('input', { name: 'local_command', value: svc?.local_command || '', placeholder: 'npx' }),
      args: h('textarea', { name: 'local_args', placeholder: 'one argument per line' }, (svc?.local_args || []).join('\n')),
      env: h('textarea', { name: 'local_env', placeholder: 'KEY=value' }, toPairs(svc?.local_env, '=')),
      dir: h('input', { name: 'local_working_dir', value: svc?.local_working_dir || '' }),
      credential: h('select', { name: 'credential_id' }, h('option', { value: '' }, 'None'),
        credentials.map((c) => h('option', { value: c.id, selected: c.id === svc?.credential_id ? true : undefined }, `${c.label} (${c.id})`))),
      timeout: h('input', { name: 'timeout_seconds', type: 'number', min: 0, max: 600, step: 1, value: svc?.timeout_seconds || '', placeholder: 'server default' }),
      pin: h('input', { type: 'checkbox', name: 'pin_tools', checked: svc ? svc.pin_tools : true }),
    };
    if (svc?.transport) f.transport.value = svc.transport;
    const remoteSet = h('fieldset', {}, h('legend', {}, 'Remote server'), field('URL', f.url), field('Transport', f.transport),
      field('Headers', f.headers, 'One “Name: value” per line. Secret-looking values are encrypted and shown masked; leave a masked value to keep it.'));
    const localSet = h('fieldset', {}, h('legend', {}, 'Local command'), field('Command', f.command), field('Arguments', f.args),
      field('Environment', f.env, 'One KEY=value per line; stored encrypted, shown masked.'), field('Working directory', f.dir));
    const sync = () => { remoteSet.hidden = !remote.checked; localSet.hidden = !local.checked; };
    local.addEventListener('change', sync); remote.addEventListener('change', sync);
    const form = h('form.stack', {
      onsubmit: async (e) => {
        e.preventDefault();
        const saved = await busy(form, () => {
          const body = { name: f.name.value.trim(), description: f.description.value };
          if (remote.checked) Object.assign(body, { url: f.url.value.trim(), transport: f.transport.value, headers: fromPairs(f.headers.value, ':', 'Headers') });
          else Object.assign(body, { local_command: f.command.value.trim(), local_args: lines(f.args.value), local_env: fromPairs(f.env.value, '=', 'Environment'), local_working_dir: f.dir.value.trim() });
          if (!svc) body.type = remote.checked ? 'mcp' : 'local-mcp';
          // Only what changed: choosing a credential is checked as the admin act it is.
          const timeout = f.timeout.value === '' ? 0 : Number(f.timeout.value);
          if (!svc ? f.credential.value : f.credential.value !== (svc.credential_id || '')) body.credential_id = f.credential.value;
          if (!svc ? timeout : timeout !== svc.timeout_seconds) body.timeout_seconds = timeout;
          if (!svc || f.pin.checked !== svc.pin_tools) body.pin_tools = f.pin.checked;
          return svc ? patch('/services/' + seg(svc.id), body) : post('/services', body);
        });
        if (saved) { close(); toast(`Saved service ${saved.name}`); reload(); }
      },
    },
    h('fieldset', {}, h('legend', {}, 'Kind'), h('label.inline', {}, remote, ' Remote (URL)'), h('label.inline', {}, local, ' Local (command)')),
    field('Name', f.name), field('Description', f.description), remoteSet, localSet,
    h('fieldset', {}, h('legend', {}, 'Calls'),
      field('Credential', f.credential, 'Its secret authenticates every call (as a bearer token, a header or an environment variable); a deck may present another.'),
      field('Timeout (seconds)', f.timeout, 'How long one call may take, 1 to 600; empty uses the server default.'),
      h('label.switch', {}, f.pin, ' Pin tool definitions: a tool whose definition changes is held until you approve it')),
    h('div.row', {}, h('button.primary', { type: 'submit' }, 'Save service'), h('button', { type: 'button', onclick: close }, 'Cancel')));
    sync();
    return form;
  });
}

function credentialForm(cred, reload) {
  openDialog(cred ? `Edit credential ${cred.label}` : 'New credential', (close) => {
    const f = {
      label: h('input', { name: 'label', required: true, value: cred?.label || '' }),
      scheme: h('select', { name: 'scheme' }, ['bearer', 'header', 'http_basic_user'].map((s) => h('option', { value: s }, s))),
      header: h('input', { name: 'header_name', value: cred?.header_name || '', placeholder: 'X-Api-Key' }),
      env: h('input', { name: 'env_name', value: cred?.env_name || '', placeholder: 'derived from the label' }),
      tags: h('input', { name: 'tags', value: (cred?.tags || []).join(', ') }),
      docs: h('input', { name: 'docs_url', type: 'url', value: cred?.docs_url || '' }),
      secret: h('input', { name: 'secret', type: 'password', autocomplete: 'new-password', required: !cred }),
    };
    if (cred) f.scheme.value = cred.scheme;
    const form = h('form.stack', {
      onsubmit: async (e) => {
        e.preventDefault();
        const saved = await busy(form, async () => {
          const meta = { label: f.label.value.trim(), scheme: f.scheme.value, tags: f.tags.value.split(',').map((t) => t.trim()).filter(Boolean) };
          if (f.header.value.trim()) meta.header_name = f.header.value.trim();
          if (f.env.value.trim()) meta.env_name = f.env.value.trim();
          if (f.docs.value.trim()) meta.docs_url = f.docs.value.trim();
          if (!cred) return post('/credentials', { ...meta, value: f.secret.value });
          let c = await patch('/credentials/' + seg(cred.id), meta);
          if (f.secret.value) c = await post(`/credentials/${seg(cred.id)}/rotate`, { value: f.secret.value });
          return c;
        });
        f.secret.value = '';
        if (saved) { close(); toast(`Saved credential ${saved.label}`); reload(); }
      },
    },
    field('Label', f.label), field('Scheme', f.scheme), field('Header name', f.header, 'Only for the “header” scheme.'),
    field('Environment variable', f.env), field('Tags', f.tags, 'Comma separated.'), field('Docs URL', f.docs),
    field(cred ? 'New secret (leave empty to keep the current one)' : 'Secret', f.secret, 'Sent once and stored encrypted; it is never shown again.'),
    h('div.row', {}, h('button.primary', { type: 'submit' }, 'Save credential'), h('button', { type: 'button', onclick: close }, 'Cancel')));
    return form;
  });
}

export function playbookForm(pb, reload) {
  openDialog(pb ? `Edit playbook ${pb.title}` : 'New playbook', (close) => {
    const f = {
      title: h('input', { name: 'title', required: true, value: pb?.title || '' }),
      triggers: h('textarea', { name: 'triggers', placeholder: 'one trigger phrase per line' }, (pb?.triggers || []).join('\n')),
      body: h('textarea', { name: 'body', required: true, rows: 12 }, pb?.body || ''),
      exec: h('input', { name: 'exec', value: pb?.exec || '' }),
    };
    const preview = h('div.preview', { 'aria-label': 'Preview', hidden: true });
    // The preview is rendered by the server (CommonMark + GFM, sanitized); agents get the text.
    const toggle = h('button', { type: 'button', 'aria-pressed': 'false', onclick: async () => {
      const on = preview.hidden;
      if (on) {
        try {
          fill(preview, sanitizedHTML((await post('/markdown', { markdown: f.body.value })).html));
        } catch (err) { fill(preview, errorBox(err)); }
      }
      preview.hidden = !on; f.body.hidden = on;
      toggle.setAttribute('aria-pressed', String(on));
      toggle.textContent = on ? 'Edit markdown' : 'Preview';
    } }, 'Preview');
    const result = h('div', { 'aria-live': 'polite' });
    const form = h('form.stack', {
      onsubmit: async (e) => {
        e.preventDefault();
        const body = { title: f.title.value.trim(), body: f.body.value, triggers: lines(f.triggers.value), exec: f.exec.value };
        const saved = await busy(form, () => pb ? patch('/playbooks/' + seg(pb.id), body) : post('/playbooks', body));
        if (!saved) return;
        pb = saved;
        toast(`Saved playbook ${saved.title}`);
        const deps = [...saved.depends_on_credential_ids, ...saved.depends_on_service_ids];
        fill(result, h('div.panel', {}, h('strong', {}, 'Saved. '), deps.length ? `Depends on: ${deps.join(', ')}` : 'No dependencies detected.',
          saved.unknown_dependencies?.length ? h('p.hint', {}, 'Unknown ids kept: ' + saved.unknown_dependencies.join(', ')) : null),
        warningsBox(saved.warnings));
        if (!saved.warnings?.length) { close(); } else { result.scrollIntoView({ block: 'nearest' }); }
        reload();
      },
    },
    field('Title', f.title), field('Triggers', f.triggers, 'Phrases that should bring this playbook up; conflicts with other playbooks are shown as warnings.'),
    h('div.row.spread', {}, h('strong', {}, 'Body (markdown)'), toggle), f.body, preview,
    field('Exec command', f.exec, 'Optional: the command this playbook runs.'),
    h('p.hint', {}, 'Dependencies on credentials and services are detected from the text when you save.'),
    result,
    h('div.row', {}, h('button.primary', { type: 'submit' }, 'Save playbook'), h('button', { type: 'button', onclick: close }, 'Close')));
    f.body.setAttribute('aria-label', 'Body (markdown)');
    return form;
  });
}
