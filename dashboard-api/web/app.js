// The dashboard shell: sign-in, navigation and the hash router that mounts one screen at a time.
import { get, loadSession, signOut } from './api.js';
import { fill, h, toast } from './ui.js';
import { signinScreen } from './screens/signin.js';
import { collectionScreen } from './screens/collection.js';
import { serviceScreen } from './screens/service.js';
import { decksScreen } from './screens/decks.js';
import { deckScreen } from './screens/deck.js';
import { sessionsScreen } from './screens/sessions.js';
import { historyScreen } from './screens/history.js';
import { settingsScreen } from './screens/settings.js';
import { consentScreen } from './screens/consent.js';
import { proposalScreen, reviewScreen } from './screens/review.js';

// routes: hash pattern → [nav section, screen]. A screen renders into main and may return a
// function that stops what it started (polling).
const routes = [
  [/^#\/collection$/, 'collection', collectionScreen],
  [/^#\/services\/(.+)$/, 'collection', serviceScreen],
  [/^#\/playbooks\/(.+)\/history$/, 'collection', historyScreen],
  [/^#\/decks$/, 'decks', decksScreen],
  [/^#\/decks\/(.+)$/, 'decks', deckScreen],
  [/^#\/sessions$/, 'sessions', sessionsScreen],
  [/^#\/review(?:\?status=(\w+))?$/, 'review', reviewScreen],
  [/^#\/proposals\/(.+)$/, 'review', proposalScreen],
  [/^#\/settings$/, 'settings', settingsScreen],
  [/^#\/consent(?:\?.*)?$/, 'settings', consentScreen],
];

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const signoutButton = document.getElementById('signout');
let stop = null;
let signedIn = false;

async function render() {
  if (stop) { stop(); stop = null; }
  if (!signedIn) return;
  const hash = location.hash || '#/collection';
  const match = routes.find(([re]) => re.test(hash));
  if (!match) { location.hash = '#/collection'; return; }
  const [re, section, screen] = match;
  for (const a of nav.querySelectorAll('a')) {
    if (a.dataset.nav === section) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const args = hash.match(re).slice(1).map((a) => a === undefined ? undefined : decodeURIComponent(a));
  countOpen();
  fill(main, h('p.muted', {}, 'Loading…'));
  try {
    stop = (await screen(main, ...args)) || null;
  } catch (err) {
    fill(main, h('div.error', { role: 'alert' }, err.message));
  }
  document.title = (main.querySelector('h1')?.textContent || 'Dashboard') + ' · Agent Deck';
}

// countOpen shows how many proposals wait for review next to the Review entry.
async function countOpen() {
  try {
    const open = await get('/proposals?status=open');
    fill(document.getElementById('review-count'), open.length ? String(open.length) : '');
    fill(document.getElementById('review-count-text'), open.length ? ` (${open.length} open proposal${open.length === 1 ? '' : 's'})` : '');
  } catch { /* the count is a hint; the screen shows errors */ }
}

function showSignIn() {
  signedIn = false;
  nav.hidden = true;
  signoutButton.hidden = true;
  if (stop) { stop(); stop = null; }
  signinScreen(main, start);
  document.title = 'Sign in · Agent Deck';
}

async function start() {
  try {
    await loadSession();
  } catch {
    showSignIn();
    return;
  }
  signedIn = true;
  nav.hidden = false;
  signoutButton.hidden = false;
  if (location.pathname !== '/') history.replaceState(null, '', '/' + (location.hash.startsWith('#/') ? location.hash : ''));
  await render();
}

signoutButton.addEventListener('click', async () => {
  try { await signOut(); } catch (err) { toast(err.message, true); }
  showSignIn();
});
window.addEventListener('hashchange', () => { render(); main.focus(); });
window.addEventListener('proposals-changed', countOpen);
window.addEventListener('signed-out', () => { if (signedIn) { toast('Your session ended; sign in again.', true); showSignIn(); } });

start();
