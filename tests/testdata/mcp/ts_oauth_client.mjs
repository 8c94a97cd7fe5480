// The official TypeScript SDK signs in to Agent Deck by OAuth: its transport meets the 401,
// discovers the authorization server, registers, and sends the "browser" to the authorization
// URL. The browser here is a person signed in to the dashboard (cookie and CSRF token from the
// environment) who allows the consent screen through its API. The client then finishes the
// sign-in, binds a deck and calls a proxied tool. Prints one line per step.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const mods = process.env.AGENT_DECK_NODE_MODULES;
const sdk = (p) => import(pathToFileURL(join(mods, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const { UnauthorizedError } = await sdk("client/auth.js");

const deckURL = new URL(process.env.DECK_URL);
const base = deckURL.origin;
const redirectUrl = "http://127.0.0.1:33418/callback";

let codeReceived = "";
let stateSent = "";
const store = {};
const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return {
      client_name: "TypeScript SDK test client",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  },
  state() { stateSent = "ts-" + Math.random().toString(36).slice(2); return stateSent; },
  clientInformation() { return store.client; },
  saveClientInformation(info) { store.client = info; console.log("registered", info.client_id.slice(0, 4)); },
  tokens() { return store.tokens; },
  saveTokens(tokens) { store.tokens = tokens; console.log("tokens", tokens.token_type, tokens.scope, tokens.refresh_token ? "with refresh" : "no refresh"); },
  saveCodeVerifier(v) { store.verifier = v; },
  codeVerifier() { return store.verifier; },
  async redirectToAuthorization(url) {
    // The browser: GET the authorization URL, land on the consent screen, press Allow.
    const res = await fetch(url, { redirect: "manual" });
    const location = res.headers.get("location") || "";
    console.log("authorize", res.status, location.startsWith("/#/consent?") ? "consent screen" : location);
    const request = Object.fromEntries(url.searchParams);
    const answer = await fetch(base + "/api/v1/oauth/consent", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Cookie: process.env.DECK_COOKIE,
        "X-Agent-Deck-CSRF": process.env.DECK_CSRF,
        Origin: base,
      },
      body: JSON.stringify({ ...request, approve: true }),
    });
    const body = await answer.json();
    if (!answer.ok) throw new Error("consent failed: " + JSON.stringify(body));
    const back = new URL(body.redirect_to);
    if (back.searchParams.get("state") !== stateSent) throw new Error("state not returned");
    codeReceived = back.searchParams.get("code");
    console.log("consented", back.origin + back.pathname, codeReceived ? "code" : "no code");
  },
};

const text = (res) => res.content.map((c) => c.text ?? "").join("");

let transport = new StreamableHTTPClientTransport(deckURL, { authProvider: provider });
let client = new Client({ name: "agent-deck-ts-oauth-test", version: "1.0.0" });
try {
  await client.connect(transport);
  throw new Error("connected without signing in");
} catch (err) {
  if (!(err instanceof UnauthorizedError)) throw err;
  console.log("unauthorized, signing in");
}
await transport.finishAuth(codeReceived);

transport = new StreamableHTTPClientTransport(deckURL, { authProvider: provider });
client = new Client({ name: "agent-deck-ts-oauth-test", version: "1.0.0" });
await client.connect(transport);
console.log("session", transport.sessionId ? "yes" : "no");

const bound = await client.callTool({ name: "bind_workspace", arguments: { workspaceRoot: "/ts", deckId: "dev" } });
if (bound.isError) throw new Error("bind failed: " + text(bound));
console.log("bound", JSON.parse(text(bound)).display_summary);

const res = await client.callTool({
  name: "call_service_tool",
  arguments: { serviceId: process.env.DECK_SERVICE, toolName: "echo", arguments: { message: "from an oauth client" } },
});
if (res.isError) throw new Error("echo failed: " + text(res));
console.log("echo", text(res));

await transport.terminateSession();
await client.close();
