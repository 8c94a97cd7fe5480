// Several official TypeScript SDK sessions declaring what real hosts declare (elicitation,
// sampling, roots) call one local server-everything service on one deck at the same time. Each
// answers every request with its own session id, and counts what it was asked. Prints one JSON
// line per session, then "live", waits for "close" on stdin, ends every session and prints
// "closed".
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";

const mods = process.env.AGENT_DECK_NODE_MODULES;
const sdk = (p) => import(pathToFileURL(join(mods, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, LoggingMessageNotificationSchema } =
  await sdk("types.js");

const n = Number(process.env.SESSIONS ?? "4");
const every = process.env.DECK_EVERYTHING;
const text = (res) => res.content.map((c) => c.text ?? "").join("\n");

const open = async (i) => {
  const transport = new StreamableHTTPClientTransport(new URL(process.env.DECK_URL), {
    requestInit: { headers: { Authorization: `Bearer ${process.env.DECK_TOKEN}` } },
  });
  const client = new Client({ name: `ts-shared-${i}`, version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } });
  const s = { i, client, transport, sid: "", asked: { elicit: 0, sample: 0, roots: 0 }, logs: 0 };
  client.setRequestHandler(ElicitRequestSchema, async () => {
    s.asked.elicit++;
    return { action: "accept", content: { name: `session ${s.sid}` } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    s.asked.sample++;
    return { role: "assistant", model: "ts-model", content: { type: "text", text: `answered by ${s.sid}` } };
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    s.asked.roots++;
    return { roots: [{ uri: `file:///ts-shared/root-${i}`, name: `root-${i}` }] };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, () => { s.logs++; });
  await client.connect(transport);
  s.sid = transport.sessionId;
  const bound = await client.callTool({ name: "bind_workspace",
    arguments: { workspaceRoot: `/ts-shared/${i}`, deckId: process.env.DECK_NAME } });
  if (bound.isError) throw new Error("bind failed: " + text(bound));
  return s;
};

const call = async (s, tool, args) => {
  const res = await s.client.callTool({ name: "call_service_tool",
    arguments: { serviceId: every, toolName: tool, arguments: args } });
  return (res.isError ? "ERROR " : "") + text(res);
};

const sessions = await Promise.all([...Array(n).keys()].map(open));
// One call alone first: the hub learns that server-everything talks back (it asks for roots),
// and from then on the sessions' calls take turns. Sessions that all call at once a server that
// has never talked back before could not be told apart (docs/architecture.md).
await call(sessions[0], "get-roots-list", {});
await Promise.all(sessions.map(async (s) => {
  const out = { session: s.sid, root: `file:///ts-shared/root-${s.i}` };
  out.elicit = await call(s, "trigger-elicitation-request", {});
  out.sample = await call(s, "trigger-sampling-request", { prompt: "hi", maxTokens: 10 });
  out.roots = await call(s, "get-roots-list", {});
  out.asked = s.asked;
  console.log(JSON.stringify(out));
}));
console.log("live");

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  if (line.trim() === "close") break;
}
for (const s of sessions) {
  await s.transport.terminateSession();
  await s.client.close();
}
console.log("closed");
