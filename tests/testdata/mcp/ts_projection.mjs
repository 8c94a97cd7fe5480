// The official TypeScript SDK with projected tools on: it binds, hears
// notifications/tools/list_changed, lists again and finds the deck's tools as <service>__<tool>;
// a person links another service (through the REST API) and it hears and lists again; it calls a
// projected tool with typed arguments and, for comparison, the same call_service_tool. Prints one
// line per step.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const mods = process.env.AGENT_DECK_NODE_MODULES;
const sdk = (p) => import(pathToFileURL(join(mods, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const { ToolListChangedNotificationSchema } = await sdk("types.js");

const env = process.env;
const transport = new StreamableHTTPClientTransport(new URL(env.DECK_URL), {
  requestInit: { headers: { Authorization: `Bearer ${env.DECK_TOKEN}` } },
});
const client = new Client({ name: "agent-deck-ts-projection", version: "1.0.0" });
let heard = 0;
const waiters = [];
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  heard++;
  for (const w of waiters.splice(0)) w();
});
// changed waits (20 s at most) for a tools/list_changed since the last wait.
const changed = async () => {
  const deadline = Date.now() + 20000;
  while (heard === 0 && Date.now() < deadline) {
    await new Promise((r) => { waiters.push(r); setTimeout(r, 500); });
  }
  const got = heard > 0;
  heard = 0;
  return got;
};
const projected = async () => (await client.listTools()).tools.filter((t) => t.name.includes("__"));

await client.connect(transport);
console.log("listChanged", client.getServerCapabilities().tools?.listChanged === true);
console.log("unbound", (await projected()).length);

const bound = await client.callTool({ name: "bind_workspace", arguments: { workspaceRoot: "/w/tsproj", deckId: env.DECK_NAME } });
console.log("bound", !bound.isError);
console.log("after bind", await changed());
let tools = await projected();
const echo = tools.find((t) => t.name === `${env.DECK_PREFIX}__echo`);
console.log("projected", echo?.name, JSON.stringify(echo?.inputSchema?.properties?.count));

const link = await fetch(`${env.DECK_API}/decks/${env.DECK_NAME}/cards`, {
  method: "POST",
  headers: { Authorization: `Bearer ${env.DECK_ADMIN}`, "Content-Type": "application/json" },
  body: JSON.stringify({ card_type: "service", card_id: env.DECK_LINK_SERVICE }),
});
console.log("linked", link.status);
console.log("after link", await changed());
tools = await projected();
console.log("relisted", tools.some((t) => t.name === `${env.DECK_LINK_PREFIX}__echo`));

const args = { message: "typed", count: 2 };
const via = await client.callTool({ name: echo.name, arguments: args });
const direct = await client.callTool({ name: "call_service_tool",
  arguments: { serviceId: env.DECK_SERVICE, toolName: "echo", arguments: args } });
console.log("call", !via.isError, JSON.stringify(via.content) === JSON.stringify(direct.content));
console.log("text", JSON.stringify(via.content[0]?.text));

await transport.terminateSession();
await client.close();
