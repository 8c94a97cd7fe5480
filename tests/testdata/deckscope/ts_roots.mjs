// The official TypeScript SDK as a client that declares roots: it answers roots/list with the
// project in DECK_ROOT and never calls bind_workspace. Prints the bound deck's display line once
// the session is bound (polling get_bound_deck), or "unbound" when it never is.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const mods = process.env.AGENT_DECK_NODE_MODULES;
const sdk = (p) => import(pathToFileURL(join(mods, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const { ListRootsRequestSchema } = await sdk("types.js");

const transport = new StreamableHTTPClientTransport(new URL(process.env.DECK_URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.DECK_TOKEN}` } },
});
const client = new Client({ name: "agent-deck-ts-roots", version: "1.0.0" }, { capabilities: { roots: { listChanged: true } } });
let asked = 0;
client.setRequestHandler(ListRootsRequestSchema, async () => {
  asked++;
  return { roots: [{ uri: pathToFileURL(process.env.DECK_ROOT).href, name: "project" }] };
});
await client.connect(transport);

const text = (res) => res.content.map((c) => c.text ?? "").join("");
const deadline = Date.now() + 20000;
let line = "unbound";
while (Date.now() < deadline) {
  const res = await client.callTool({ name: "get_bound_deck", arguments: {} });
  if (!res.isError) {
    line = "bound " + JSON.parse(text(res)).display_summary;
    break;
  }
  await new Promise((r) => setTimeout(r, 50));
}
console.log("roots asked", asked);
console.log(line);

await transport.terminateSession();
await client.close();
