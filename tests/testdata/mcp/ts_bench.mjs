// The benchmark's TypeScript SDK client: SESSIONS official SDK sessions declaring what real hosts
// declare (elicitation, sampling, roots), each opened to DECK_URL. With DECK_SERVICE set they call
// the echo tool through call_service_tool on the deck DECK_NAME (each session bound to it first),
// else echo directly. Prints "ready", then for each line "run K N" on stdin makes N echo calls
// spread over the first K sessions (each session one call at a time) and prints one JSON line:
// the latency percentiles in microseconds and the calls per second. "close" ends the sessions.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createInterface } from "node:readline";

const mods = process.env.AGENT_DECK_NODE_MODULES;
const sdk = (p) => import(pathToFileURL(join(mods, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } = await sdk("types.js");

const n = Number(process.env.SESSIONS ?? "16");
const service = process.env.DECK_SERVICE ?? "";
const headers = process.env.DECK_TOKEN ? { Authorization: `Bearer ${process.env.DECK_TOKEN}` } : {};
const text = (res) => res.content.map((c) => c.text ?? "").join("\n");

const open = async (i) => {
  const transport = new StreamableHTTPClientTransport(new URL(process.env.DECK_URL), { requestInit: { headers } });
  const client = new Client({ name: `ts-bench-${i}`, version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" }));
  client.setRequestHandler(CreateMessageRequestSchema, async () =>
    ({ role: "assistant", model: "ts-bench", content: { type: "text", text: "no" } }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: `file:///ts-bench/${i}`, name: `w${i}` }] }));
  await client.connect(transport);
  if (service) {
    const bound = await client.callTool({ name: "bind_workspace",
      arguments: { workspaceRoot: `/ts-bench/${i}`, deckId: process.env.DECK_NAME } });
    if (bound.isError) throw new Error("bind failed: " + text(bound));
  }
  return { client, transport };
};

const echo = service
  ? { name: "call_service_tool", arguments: { serviceId: service, toolName: "echo", arguments: { message: "bench" } } }
  : { name: "echo", arguments: { message: "bench" } };

const call = async (s) => {
  const res = await s.client.callTool(echo);
  if (res.isError) throw new Error("echo failed: " + text(res));
};

const sessions = [];
for (let i = 0; i < n; i++) sessions.push(await open(i));
console.log("ready");

const run = async (k, total) => {
  const durations = new Array(total);
  let next = 0;
  const start = performance.now();
  await Promise.all(sessions.slice(0, k).map(async (s) => {
    for (let i = next++; i < total; i = next++) {
      const t0 = performance.now();
      await call(s);
      durations[i] = performance.now() - t0;
    }
  }));
  const wall = performance.now() - start;
  durations.sort((a, b) => a - b);
  const pct = (p) => durations[Math.floor(((total - 1) * p) / 100)]; // as the Go side's percentile
  return { p50_us: Math.round(pct(50) * 1000), p99_us: Math.round(pct(99) * 1000), per_sec: (total * 1000) / wall };
};

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  const [cmd, k, total] = line.trim().split(/\s+/);
  if (cmd === "close") break;
  if (cmd === "run") console.log(JSON.stringify(await run(Number(k), Number(total))));
}
for (const s of sessions) {
  await s.transport.terminateSession().catch(() => {});
  await s.client.close();
}
