// The official TypeScript SDK as an agent that offers sampling and elicitation: through Agent
// Deck it receives progress, log messages, elicitation and sampling requests from downstream
// servers (the Go test peer and server-everything). Prints one line per observation.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const mods = process.env.AGENT_DECK_NODE_MODULES;
const sdk = (p) => import(pathToFileURL(join(mods, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema } = await sdk("types.js");

const transport = new StreamableHTTPClientTransport(new URL(process.env.DECK_URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.DECK_TOKEN}` } },
});
const client = new Client({ name: "agent-deck-ts-faithful", version: "1.0.0" },
  { capabilities: { sampling: {}, elicitation: { form: {} } } });
client.setRequestHandler(CreateMessageRequestSchema, async () => ({
  role: "assistant", model: "ts-model", content: { type: "text", text: "the TS model answers" },
}));
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  console.log("asked", JSON.stringify(req.params.message));
  return { action: "accept", content: { name: "TS user" } };
});
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
await client.connect(transport);
await client.setLoggingLevel("info");

const text = (res) => res.content.map((c) => c.text ?? "").join("");
const bound = await client.callTool({ name: "bind_workspace", arguments: { workspaceRoot: "/ts-faithful", deckId: "faithful" } });
if (bound.isError) throw new Error("bind failed: " + text(bound));

const call = async (service, tool, args) => {
  const progress = [];
  const res = await client.callTool(
    { name: "call_service_tool", arguments: { serviceId: service, toolName: tool, arguments: args } },
    undefined, { onprogress: (p) => progress.push(p) });
  return { res, progress };
};

const peer = process.env.DECK_PEER;
{
  // A call the downstream answers without talking back, and no progress asked for.
  const res = await client.callTool({ name: "call_service_tool",
    arguments: { serviceId: peer, toolName: "echo", arguments: { message: "plain" } } });
  console.log("peer echo", text(res));
}
{
  const { res, progress } = await call(peer, "progress", { count: 3, tag: "ts", gap_ms: 50 });
  console.log("peer progress", progress.length, text(res));
}
{
  const { res } = await call(peer, "notify_log", { tag: "ts" });
  await new Promise((r) => setTimeout(r, 200)); // log messages may trail the result on another stream
  console.log("peer logs", logs.filter((l) => String(l.data).startsWith("ts ")).map((l) => l.level).sort().join(","), text(res));
}
console.log("peer elicit", text((await call(peer, "elicit", { message: "Your name?" })).res));
console.log("peer sample", text((await call(peer, "sample", { prompt: "hi" })).res));

const every = process.env.DECK_EVERYTHING;
{
  const { res, progress } = await call(every, "trigger-long-running-operation", { duration: 0.3, steps: 3 });
  console.log("everything progress", progress.length, res.isError ? "error " + text(res) : "ok");
}
{
  const { res } = await call(every, "trigger-sampling-request", { prompt: "hi", maxTokens: 20 });
  console.log("everything sample", res.isError ? "error " + text(res) : text(res).includes("the TS model answers"));
}
{
  const { res } = await call(every, "trigger-elicitation-request", {});
  console.log("everything elicit", res.isError ? "error " + text(res) : text(res).includes("TS user") || text(res).includes("accept"));
}

await transport.terminateSession();
await client.close();
