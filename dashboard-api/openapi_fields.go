package dashboardapi

import (
	"maps"
	"reflect"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// fieldDocs describes JSON properties by name, for the OpenAPI document: every request body
// field has one (a test checks), and responses that share a name share the text.
// typeFieldDocs overrides a name for one type where the general text would mislead.
var fieldDocs = map[string]string{
	"markdown":          "Markdown text (CommonMark with GitHub's extensions), at most 256 KiB",
	"name":              "Unique name, case-insensitive; at most 100 characters",
	"card_type":         "service, credential or playbook",
	"card_id":           "Card id, or its name (service), label (credential) or title (playbook)",
	"position":          "0-based place among the deck's cards of this type; omit to put the card last",
	"ordered_card_ids":  "Every card of this type on the deck, each once, in the new order",
	"type":              "mcp: a remote server at url; local-mcp: a command started by the deck",
	"url":               "http(s) URL of the remote MCP server (type mcp)",
	"transport":         "auto (Streamable HTTP, falling back to SSE), streamable_http or sse",
	"description":       "What the service is for, shown to agents; at most 2000 characters",
	"headers":           "HTTP headers sent to the server; secret-looking values are encrypted and returned masked",
	"credential_id":     "Credential (id or label) whose secret authenticates calls to this service; setting it is admin-only",
	"local_command":     "Program to start (type local-mcp): a name on PATH or an absolute path",
	"local_args":        "Arguments of local_command",
	"local_working_dir": "Absolute working directory of local_command",
	"local_env":         "Environment of local_command; values are encrypted and never returned",
	"timeout_seconds":   "Deadline of each call, 1 to 600 seconds (default 60)",
	"pin_tools":         "Hold a tool whose definition changed since it was approved (default true)",
	"disabled_tools":    "Names of the service's tools agents may not list or call; GET …/tools shows the names",
	"tool_name":         "Name of the downstream tool to call",
	"arguments":         "The tool's arguments: a JSON object matching its input schema",
	"deck":              "Deck id or exact name",
	"tools":             "Names of the tools to act on; empty means all",
	"hashes":            "Hashes of held definitions (GET …/held shows them): approve exactly these",
	"read_only_hint":    "The readOnlyHint agents see; true lets agent:read tokens call the tool",
	"destructive_hint":  "The destructiveHint agents see",
	"open_world_hint":   "The openWorldHint agents see",
	"label":             "Unique label, case-insensitive; the env name and id derive from it",
	"scheme":            "How the secret is sent: bearer, header (in header_name) or http_basic_user",
	"header_name":       "HTTP header that carries the secret (scheme header)",
	"enabled":           "true lists the deck's enabled downstream tools to its bound sessions as tools of their own; false stops it",
	"max_tools":         "At most this many projected tools (1 to 1000; default 40, or the deck's current cap)",
	"max_tokens":        "At most this many model tokens of projected tools (100 to 1000000; default 8000, or the deck's current cap)",
	"allowed":           "true lets the service ask the agent's model for completions (MCP sampling) on this deck; false takes it back",
	"env_name":          "Environment variable the secret is exposed as (exec, local services); derived from the label when omitted",
	"tags":              "Free tags, at most 32 of at most 40 characters",
	"docs_url":          "Where to get or manage the key",
	"value":             "The secret itself; write-only, never returned",
	"id":                "The id; in a create request, one to use instead of the derived cred_… or pb_… id",
	"title":             "Unique title, case-insensitive; at most 100 characters",
	"body":              "The runbook in markdown; at most 256 KiB",
	"triggers":          "Phrases that should make an agent open this playbook; at most 16 of at most 80 characters",
	"exec":              "A command line the playbook runs; at most 4000 characters",
	"skill":             "Name of the agent skill this playbook backs",
	"depends_on_credential_ids": "Credentials (ids or labels) the playbook needs, given explicitly; " +
		"kept until removed explicitly. The response lists the effective set, explicit plus detected",
	"depends_on_service_ids": "Services (ids or names) the playbook needs, given explicitly; " +
		"kept until removed explicitly. The response lists the effective set, explicit plus detected",
	"auto_detect_dependencies": "Detect dependencies in the title, body, exec, skill and triggers (default true); " +
		"detected ones follow the text on every change",
	"scope":          "admin (everything), agent (MCP with editing) or agent:read (MCP read-only)",
	"credential_ids": "Credentials (ids or labels) whose secrets the command gets in its environment",
	"command":        "The command and its arguments",
	"exit_code":      "Exit status of the command",
	"workspace":      "Absolute workspace path",
	"decks":          "Decks (ids or names) to export with the cards they link; empty exports everything",
	"dry_run":        "Report what would change without changing anything",
	"code":           "Machine-readable error code",
	"message":        "What went wrong, for people and models",
	"counts":         "Cards of each type on the whole deck",
	"matched":        "Cards of each type that card_type and query kept",
	"compact":        "One line per card after the full entries: id · name (playbooks: id · title · triggers)",
	"more":           "What the page left out and how to get it; absent when nothing is left",
	"remaining":      "Cards not shown yet",
	"cursor":         "Pass as cursor to get the next page",
	"auth":           "Sign-in state of a service that needs OAuth: connected, needs_sign_in or error; absent when it has none",

	"reason":      "Why the proposal was rejected; optional, at most 2000 characters",
	"ids":         "Feedback signal ids",
	"signals":     "Feedback signals to record: playbook_id (optional), rationale, evidence",
	"rationale":   "Why the agent proposed the change or recorded the signal",
	"evidence":    "failure_summary, user_feedback_excerpt, corrected_output_hint: short excerpts shown to the reviewer",
	"allow_tools": "The only tools of the service the deck exposes (on top of its disabled tools); [] removes the allow-list",
	"deny_tools":  "Tools of the service the deck hides; [] removes the deny-list. At most one of allow_tools and deny_tools is set",

	// Review of agents' playbook writes.
	"required": "true holds agent tokens' playbook writes on the deck for review, false lets them take effect, null follows the server's default",
	"proposal": "Set when an agent's write was held for review: the proposal a person accepts; the playbook is unchanged until then",
	"next":     "What happens next, in a sentence",
	"edit":     "An agent's direct change held for review: the fields it sets (exec and skill never)",

	// Rate limits of proxied calls.
	"calls_per_minute": "Calls a minute (a minute's worth may come at once); 0 is no limit, null or absent inherits",
	"concurrent_calls": "Calls in flight at once; 0 is no limit, null or absent inherits",

	// The tool-call audit trail.
	"capture_arguments": "Keep the (redacted) arguments of tool calls made through this deck in the audit trail",
	"next_cursor":       "Pass as cursor to get the next page; absent on the last page",
	// A service sign-in's pre-registered client.
	"client_id":                  "A client id the service's authorization server issued for Agent Deck; omit to let Agent Deck register itself",
	"client_secret":              "That client's secret (kept sealed, never returned); omit for a public client",
	"token_endpoint_auth_method": "How the client secret is sent: client_secret_basic (default) or client_secret_post",
}

var typeFieldDocs = map[reflect.Type]map[string]string{
	reflect.TypeFor[Problem](): {
		"type":     "The problem type: /api/v1/problems/{code}, resolved against the server asked; GET it for the type's description",
		"title":    "The problem type's title, the same for every occurrence",
		"status":   "The HTTP status of this answer",
		"detail":   "What went wrong this time, for people and models",
		"instance": "The request path that failed",
		"code":     "Machine-readable error code (extension member)",
		"hint":     "What to do next; absent when there is nothing to add (extension member)",
		"details":  "Structured facts: the field at fault, accepted values, dependents, the request id of an internal error (extension member)",
		"error":    "Deprecated: the error object of earlier versions (code, message, details with the hint); read code, detail, hint and details instead",
	},
	reflect.TypeFor[ErrorBody](): {
		"message": "The problem's detail",
		"details": "The problem's details, with its hint as details.hint",
	},
	reflect.TypeFor[ProblemType](): {
		"type":        "This problem type's URI reference",
		"title":       "Its title",
		"status":      "The HTTP status its problems usually have",
		"description": "What it means and what to do about it",
	},
	reflect.TypeFor[core.CredentialDeletion](): {
		"id":                          "The deleted credential's id",
		"label":                       "The deleted credential's label",
		"fallbacks":                   "The decks that had chosen it for a service; their calls to that service present the service's own credential now",
		"services_without_credential": "Services whose own credential it was; their calls go without a credential now",
	},
	reflect.TypeFor[core.CredentialFallback](): {
		"deck":    "Name of the deck that had chosen the credential",
		"service": "Name of the service it had chosen it for",
		"now":     "The credential the deck's calls to the service present now (the service's own); absent when there is none",
	},
	reflect.TypeFor[backend.ToolCall](): {
		"id":           "Entry id, increasing with time",
		"arguments":    "The call's arguments with secrets masked; only for decks that capture arguments",
		"outcome":      "ok, is_error (the tool answered with isError) or error (error_code says why)",
		"duration_ms":  "Milliseconds from the call's arrival to its answer",
		"result_bytes": "Size of the downstream result in bytes (0 when the call failed)",
		"session_id":   "MCP session of the call; absent for REST calls",
		"deck_name":    "Deck the call went through (for a refused REST call, the deck as named)",
		"service_name": "Service called (for a refused call, the service as named)",
	},
}

// deprecatedFields are properties the document marks deprecated: still sent, soon removed.
var deprecatedFields = map[reflect.Type]map[string]bool{
	reflect.TypeFor[Problem](): {"error": true},
}

// describe adds the description of t's property name to its schema, when there is one.
func describe(schema map[string]any, t reflect.Type, name string) map[string]any {
	doc, ok := typeFieldDocs[t][name]
	if !ok {
		doc, ok = fieldDocs[name]
	}
	if !ok {
		return schema
	}
	out := maps.Clone(schema)
	out["description"] = doc
	return out
}
