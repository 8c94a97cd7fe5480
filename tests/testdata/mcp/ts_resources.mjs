// The official TypeScript SDK reads Agent Deck's resources and prompts: the hub's own (the bound
// deck, its playbooks) and those of a downstream server (server-everything) through the hub, and
// hears notifications/resources/updated for a playbook it subscribed to when a person edits it
// (a PATCH through the REST API, as the CLI and dashboard do). Prints one line per step.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const mods = process.env.AGENT_DECK_NODE_MODULES;
const sdk = (p) => import(pathToFileURL(join(mods, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const { ResourceUpdatedNotificationSchema, ResourceListChangedNotificationSchema, PromptListChangedNotificationSchema } =
  await sdk("types.js");

const env = process.env;
const transport = new StreamableHTTPClientTransport(new URL(env.DECK_URL), {
  requestInit: { headers: { Authorization: `Bearer ${env.DECK_TOKEN}`, "x-agent-deck-deck-id": env.DECK_NAME } },
});
const client = new Client({ name: "agent-deck-ts-resources", version: "1.0.0" });
let updated;
const gotUpdate = new Promise((resolve) => (updated = resolve));
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated(n.params.uri));
// Resolves when the server sent method (since the last wait for it), or says "none" after 20 s.
const heard = { resources: 0, prompts: 0 };
const waiters = [];
const hear = (kind) => {
  heard[kind]++;
  for (const w of waiters.splice(0)) w();
};
client.setNotificationHandler(ResourceListChangedNotificationSchema, () => hear("resources"));
client.setNotificationHandler(PromptListChangedNotificationSchema, () => hear("prompts"));
const changed = async (kind) => {
  const deadline = Date.now() + 20000;
  while (heard[kind] === 0 && Date.now() < deadline) {
    await new Promise((r) => { waiters.push(r); setTimeout(r, 500); });
  }
  const got = heard[kind] > 0;
  heard[kind] = 0;
  return got;
};
await client.connect(transport);
const caps = client.getServerCapabilities();
console.log("capabilities", JSON.stringify({ resources: caps.resources, prompts: caps.prompts, completions: !!caps.completions }));

// Every page of resources.
const resources = [];
let cursor;
do {
  const page = await client.listResources(cursor ? { cursor } : {});
  resources.push(...page.resources);
  cursor = page.nextCursor;
} while (cursor);
console.log("resources", resources.map((r) => r.uri).filter((u) => !u.startsWith("agentdeck://services/")).join(" "));
const downstream = resources.filter((r) => r.uri.startsWith(`agentdeck://services/${env.DECK_PREFIX}/resources/`));
console.log("downstream resources", downstream.length > 0, downstream[0]?.name);

const deck = await client.readResource({ uri: "agentdeck://deck" });
console.log("deck", JSON.parse(deck.contents[0].text).display_summary);
const pbURI = `agentdeck://playbooks/${env.DECK_PLAYBOOK}`;
const pb = await client.readResource({ uri: pbURI });
console.log("playbook", pb.contents[0].mimeType, JSON.stringify(pb.contents[0].text));

const doc = downstream.find((r) => r.uri.includes("architecture.md")) ?? downstream[0];
const read = await client.readResource({ uri: doc.uri });
console.log("downstream read", read.contents[0].uri === doc.uri, (read.contents[0].text ?? read.contents[0].blob ?? "").length > 0);

const { resourceTemplates } = await client.listResourceTemplates();
const textTemplate = resourceTemplates.find((t) => t.uriTemplate.includes("dynamic%2Ftext"));
console.log("templates", resourceTemplates.some((t) => t.uriTemplate === "agentdeck://playbooks/{playbook_id}"), !!textTemplate);
const dyn = await client.readResource({ uri: textTemplate.uriTemplate.replace("{resourceId}", "7") });
console.log("template read", dyn.contents[0].text.includes("7"));
const byTitle = await client.readResource({ uri: "agentdeck://playbooks/" + encodeURIComponent(env.DECK_PLAYBOOK_TITLE) });
console.log("by title", byTitle.contents[0].text === pb.contents[0].text);

const { prompts } = await client.listPrompts();
console.log("prompts", prompts.map((p) => p.name).sort().join(" "));
const simple = await client.getPrompt({ name: `${env.DECK_PREFIX}__simple-prompt` });
console.log("prompt", simple.messages[0].role, simple.messages[0].content.type);
const args = await client.getPrompt({ name: `${env.DECK_PREFIX}__args-prompt`, arguments: { city: "Lyon", state: "Rhône" } });
console.log("prompt args", JSON.stringify(args.messages[0].content.text));
const done = await client.complete({ ref: { type: "ref/prompt", name: `${env.DECK_PREFIX}__completable-prompt` },
  argument: { name: "department", value: "E" } });
console.log("complete", done.completion.values.join(","));
const ids = await client.complete({ ref: { type: "ref/resource", uri: "agentdeck://playbooks/{playbook_id}" },
  argument: { name: "playbook_id", value: env.DECK_PLAYBOOK.slice(0, 4) } });
console.log("complete playbooks", ids.completion.values.includes(env.DECK_PLAYBOOK));

// A person links another service to the deck: both lists the client asked for changed.
const link = await fetch(`${env.DECK_API}/decks/${env.DECK_NAME}/cards`, {
  method: "POST",
  headers: { Authorization: `Bearer ${env.DECK_ADMIN}`, "Content-Type": "application/json" },
  body: JSON.stringify({ card_type: "service", card_id: env.DECK_LINK_SERVICE }),
});
console.log("linked", link.status);
console.log("list_changed", await changed("resources"), await changed("prompts"));

try {
  await client.readResource({ uri: "agentdeck://playbooks/pb_not_there" });
  console.log("missing read succeeded");
} catch (e) {
  console.log("missing", e.code, /NOT_ON_BOUND_DECK/.test(e.message));
}

await client.subscribeResource({ uri: pbURI });
const patch = await fetch(`${env.DECK_API}/playbooks/${env.DECK_PLAYBOOK}`, {
  method: "PATCH",
  headers: { Authorization: `Bearer ${env.DECK_ADMIN}`, "Content-Type": "application/json" },
  body: JSON.stringify({ body: "# Release\n1. echo it\n2. tag it" }),
});
console.log("edited", patch.status);
const uri = await Promise.race([gotUpdate, new Promise((r) => setTimeout(() => r("none"), 20000))]);
console.log("updated", uri);
const after = await client.readResource({ uri: pbURI });
console.log("reread", JSON.stringify(after.contents[0].text));
await client.unsubscribeResource({ uri: pbURI });

await transport.terminateSession();
await client.close();
