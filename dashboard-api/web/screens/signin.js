// Sign-in: the one-time code from `agent-deck dashboard` (in the URL fragment), or a pasted
// admin token. Either way the browser ends up with an HttpOnly session cookie.
import { exchangeCode, signInWithToken } from '../api.js';
import { busy, errorBox, field, fill, h } from '../ui.js';
import { oidcRefusal, oidcSignIn } from './signin_oidc.js';

export async function signinScreen(main, done) {
  const code = new URLSearchParams(location.hash.slice(1)).get('code');
  if (code) {
    // Forget the code at once: it works only once anyway.
    history.replaceState(null, '', '/signin');
    fill(main, h('p.muted', {}, 'Signing in…'));
    try {
      await exchangeCode(code);
      history.replaceState(null, '', '/#/collection');
      return done();
    } catch (err) {
      return renderForm(main, done, err);
    }
  }
  return renderForm(main, done, oidcRefusal(), await oidcSignIn());
}

function renderForm(main, done, err, oidc) {
  const token = h('input', { type: 'password', name: 'token', autocomplete: 'off', required: true, spellcheck: 'false' });
  const form = h('form.stack', {
    onsubmit: async (e) => {
      e.preventDefault();
      const ok = await busy(form, () => signInWithToken(token.value));
      // An OAuth consent request that brought the person here stays on screen after sign-in.
      const next = location.hash.startsWith('#/consent') ? location.hash : '#/collection';
      if (ok) { history.replaceState(null, '', '/' + next); done(); }
    },
  },
  field('Admin token', token, 'Find it in $AGENT_DECK_HOME/admin.token, or create one with: agent-deck token create NAME --scope admin'),
  h('button.primary', { type: 'submit' }, 'Sign in'));
  fill(main, h('section.signin.panel', { 'aria-labelledby': 'signin-title' },
    h('h1', { id: 'signin-title' }, 'Sign in to Agent Deck'),
    err ? errorBox(err) : null,
    oidc,
    h('p', {}, 'Run ', h('code', {}, 'agent-deck dashboard'), ' in a terminal: it opens this page signed in. Or paste an admin token:'),
    form));
  token.focus();
}
