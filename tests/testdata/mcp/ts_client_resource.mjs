// The official TypeScript SDK on the resource profile: the agent hot path through the four
// resource tools — bind, get the deck, call a downstream tool, read a playbook. Prints one line
// per step.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const mods = process.env.AGENT_DECK_NODE_MODULES;
const sdk = (p) => import(pathToFileURL(join(mods, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const transport = new StreamableHTTPClientTransport(new URL(process.env.DECK_URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.DECK_TOKEN}` } },
});
const client = new Client({ name: "agent-deck-ts-resource-test", version: "1.0.0" });
await client.connect(transport);
console.log("instructions", JSON.stringify(client.getInstructions()));

const { tools } = await client.listTools();
console.log("tools", tools.map((t) => t.name).sort().join(","));

const text = (res) => res.content.map((c) => c.text ?? "").join("");
const must = (name, res) => {
  if (res.isError) throw new Error(name + " failed: " + text(res));
  return res;
};

const bound = must("bind", await client.callTool({
  name: "session", arguments: { action: "bind", id: "dev", fields: { workspaceRoot: "/ts" } },
}));
console.log("bound", JSON.parse(text(bound)).display_summary);

const deck = JSON.parse(text(must("deck get", await client.callTool({ name: "deck", arguments: { action: "get" } }))));
console.log("deck", deck.services.map((s) => s.name).join(","), deck.playbooks.map((p) => p.id).join(","));

const echo = must("call", await client.callTool({
  name: "service",
  arguments: { action: "call", id: process.env.DECK_SERVICE, fields: { toolName: "echo", arguments: { message: "from typescript" } } },
}));
console.log("echo", text(echo));

const pb = JSON.parse(text(must("playbook get", await client.callTool({
  name: "playbook", arguments: { action: "get", id: deck.playbooks[0].id },
}))));
console.log("playbook", JSON.stringify(pb.body));

const wrong = await client.callTool({ name: "deck", arguments: { action: "link" } });
console.log("teach", JSON.parse(text(wrong)).error.message);

await transport.terminateSession();
await client.close();
