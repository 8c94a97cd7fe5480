// The dashboard shell: sign-in, navigation and the hash router that mounts one screen at a time.
import { get, loadSession, signOut } from './api.js';
import { fill, h, toast } from './ui.js';
// The collection is the landing screen: loaded with the shell, so its reads go out at once.
import * as collection from './screens/collection.js';

// routes: hash pattern → [nav section, module under screens/, its screen function]. A screen
// renders into main and may return a function that stops what it started (polling). Screens are
// loaded when first shown, so the first paint waits only for the modules it needs (index.html
// preloads the collection's).
const routes = [
  [/^#\/collection$/, 'collection', 'collection', 'collectionScreen'],
  [/^#\/services\/(.+)$/, 'collection', 'service', 'serviceScreen'],
  [/^#\/playbooks\/(.+)\/history$/, 'collection', 'history', 'historyScreen'],
  [/^#\/decks$/, 'decks', 'decks', 'decksScreen'],
  [/^#\/decks\/(.+)$/, 'decks', 'deck', 'deckScreen'],
  [/^#\/sessions$/, 'sessions', 'sessions', 'sessionsScreen'],
  [/^#\/activity(?:\?(.*))?$/, 'activity', 'activity', 'activityScreen'],
  [/^#\/activity\/calls\/(\d+)$/, 'activity', 'activity', 'callScreen'],
  [/^#\/activity\/exec$/, 'activity', 'activity', 'execScreen'],
  [/^#\/activity\/playbooks$/, 'activity', 'activity', 'usageScreen'],
  [/^#\/review(?:\?status=(\w+))?$/, 'review', 'review', 'reviewScreen'],
  [/^#\/proposals\/(.+)$/, 'review', 'review', 'proposalScreen'],
  [/^#\/settings$/, 'settings', 'settings', 'settingsScreen'],
  [/^#\/consent(?:\?.*)?$/, 'settings', 'consent', 'consentScreen'],
];

/** The route of a hash, or undefined. */
const routeOf = (hash) => routes.find(([re]) => re.test(hash));

/** The screen function of a route, loading its module the first time. */
const screenOf = ([, , file, name]) => file === 'collection' ? collection[name] : import(`./screens/${file}.js`).then((m) => m[name]);

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const signoutButton = document.getElementById('signout');
let stop = null;
// state: 'starting' while the session is being checked (the screen already loads: its GETs need
// only the cookie), 'in' once the session answered, 'out' on the sign-in page.
let state = 'starting';

async function render() {
  if (stop) { stop(); stop = null; }
  if (state === 'out') return;
  const hash = location.hash || '#/collection';
  const match = routeOf(hash);
  if (!match) { location.hash = '#/collection'; return; }
  const [re, section] = match;
  for (const a of nav.querySelectorAll('a')) {
    if (a.dataset.nav === section) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const args = hash.match(re).slice(1).map((a) => a === undefined ? undefined : decodeURIComponent(a));
  const drawn = serverDrawn(match[2]);
  if (!drawn) fill(main, h('p.muted', {}, 'Loading…'));
  try {
    const screen = await screenOf(match);
    stop = (await (drawn ? screen(main, drawn) : screen(main, ...args))) || null;
  } catch (err) {
    if (state === 'out') return; // signed out meanwhile: the sign-in page stays
    fill(main, h('div.error', { role: 'alert' }, err.message));
  }
  document.title = (main.querySelector('h1')?.textContent || 'Dashboard') + ' · Agent Deck';
  countOpen(); // after the screen, so its requests go first
}

// serverDrawn takes, once, what the server drew into the page: at / with a session it draws the
// landing screen into main (main[data-screen]) with the reads behind it (#screen-data). When the
// first screen shown is that one, it gets the reads to take the drawn screen over without
// drawing it again; any other screen draws itself, and the drawing and its reads are dropped.
function serverDrawn(file) {
  const data = document.getElementById('screen-data');
  const screen = main.dataset.screen;
  main.removeAttribute('data-screen');
  if (!data) return null;
  data.remove();
  if (screen !== file) return null;
  try { return JSON.parse(data.textContent); } catch { return null; }
}

// countOpen shows how many proposals wait for review next to the Review entry.
async function countOpen() {
  try {
    const open = await get('/proposals?status=open');
    fill(document.getElementById('review-count'), open.length ? String(open.length) : '');
    fill(document.getElementById('review-count-text'), open.length ? ` (${open.length} open proposal${open.length === 1 ? '' : 's'})` : '');
  } catch { /* the count is a hint; the screen shows errors */ }
}

async function showSignIn() {
  state = 'out';
  serverDrawn(null); // the sign-in page replaces whatever the server drew
  nav.hidden = true;
  signoutButton.hidden = true;
  if (stop) { stop(); stop = null; }
  const { signinScreen } = await import('./screens/signin.js');
  signinScreen(main, start);
  document.title = 'Sign in · Agent Deck';
}

async function start() {
  // On the landing screen the session check and the screen's reads go out side by side: the
  // reads need only the cookie, a signed-out browser gets 401 on both, and the collection shows
  // nothing until its reads succeed. Other screens (some show their own errors) and an address
  // that names no screen (a one-time sign-in code) wait for the session.
  state = 'starting';
  const session = loadSession();
  const match = routeOf(location.hash || '#/collection');
  const shown = match && match[2] === 'collection' ? render() : null;
  try {
    await session;
  } catch {
    showSignIn();
    return;
  }
  state = 'in';
  nav.hidden = false;
  signoutButton.hidden = false;
  if (location.pathname !== '/') history.replaceState(null, '', '/' + (location.hash.startsWith('#/') ? location.hash : ''));
  await (shown || render());
}

signoutButton.addEventListener('click', async () => {
  try { await signOut(); } catch (err) { toast(err.message, true); }
  showSignIn();
});
window.addEventListener('hashchange', () => { render(); main.focus(); });
window.addEventListener('proposals-changed', countOpen);
window.addEventListener('signed-out', () => { if (state === 'in') { toast('Your session ended; sign in again.', true); showSignIn(); } });

start();
