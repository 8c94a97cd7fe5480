// The official TypeScript SDK as an agent that learns: bind, then either propose an add_item
// fix to a playbook (argv[2] = "propose") or read the playbook back ("get"). One line per step.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const mods = process.env.AGENT_DECK_NODE_MODULES;
const sdk = (p) => import(pathToFileURL(join(mods, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const transport = new StreamableHTTPClientTransport(new URL(process.env.DECK_URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.DECK_TOKEN}` } },
});
const client = new Client({ name: "agent-deck-ts-learn", version: "1.0.0" });
await client.connect(transport);
const text = (res) => res.content.map((c) => c.text ?? "").join("");
await client.callTool({ name: "bind_workspace", arguments: { workspaceRoot: "/ts", deckId: "dev" } });

const playbook = process.env.DECK_PLAYBOOK;
if (process.argv[2] === "propose") {
  const res = await client.callTool({
    name: "propose_playbook_patch",
    arguments: {
      kind: "update", playbook_id: playbook, rationale: "the user asked for a dry run first",
      ops: [{ op: "add_item", section: "Checks", text: "dry-run first" }],
      evidence: { user_feedback_excerpt: "always dry-run before releasing" },
    },
  });
  if (res.isError) throw new Error("propose failed: " + text(res));
  console.log("proposal", JSON.parse(text(res)).proposal.id);
} else {
  const res = await client.callTool({ name: "get_playbook", arguments: { playbook_id: playbook } });
  if (res.isError) throw new Error("get_playbook failed: " + text(res));
  const pb = JSON.parse(text(res));
  console.log("body", JSON.stringify(pb.body));
  console.log("open", pb.open_proposals.length);
}
await transport.terminateSession();
await client.close();
