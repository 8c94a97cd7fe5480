// The official TypeScript SDK as an Agent Deck client: connect over Streamable HTTP with a token,
// list tools, see NOT_BOUND, bind, call a proxied tool, end the session. Prints one line per step.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const mods = process.env.AGENT_DECK_NODE_MODULES;
const sdk = (p) => import(pathToFileURL(join(mods, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const transport = new StreamableHTTPClientTransport(new URL(process.env.DECK_URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.DECK_TOKEN}` } },
});
const client = new Client({ name: "agent-deck-ts-test", version: "1.0.0" });
await client.connect(transport);
console.log("session", transport.sessionId);
console.log("instructions", JSON.stringify(client.getInstructions()));

const { tools } = await client.listTools();
console.log("tools", tools.length);

const text = (res) => res.content.map((c) => c.text ?? "").join("");
const unbound = await client.callTool({ name: "get_bound_deck", arguments: {} });
console.log("error", JSON.parse(text(unbound)).error.code, unbound.isError);

const bound = await client.callTool({ name: "bind_workspace", arguments: { workspaceRoot: "/ts", deckId: "dev" } });
console.log("bound", JSON.parse(text(bound)).display_summary);

const res = await client.callTool({
  name: "call_service_tool",
  arguments: { serviceId: process.env.DECK_SERVICE, toolName: "echo", arguments: { message: "from typescript" } },
});
if (res.isError) throw new Error("echo failed: " + text(res));
console.log("echo", text(res));

await transport.terminateSession();
await client.close();
