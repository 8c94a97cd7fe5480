package dashboardapi

// routeDescriptions is the OpenAPI description of each route, by operationId: what the summary
// line has no room for (who may call, what the answer holds, what to do next). They live beside
// the route table rather than in its rows so that a row stays one readable line; the OpenAPI
// document adds what follows from the row itself (paging, conditional requests).
// TestOpenAPIEveryOperationIsDescribed fails on a route without one and on an entry without a route.
var routeDescriptions = map[string]string{
	// Probes and this document.
	"healthz":     "Answers 200 with {\"status\":\"ok\"} while the process serves HTTP; it checks nothing else, so a supervisor can tell a hung process from a busy one. No token.",
	"readyz":      "Answers 200 with {\"status\":\"ready\"} when the database (and the proxy) can serve requests, and 503 otherwise; load balancers send traffic only to ready replicas. No token.",
	"openAPI":     "This OpenAPI 3.1 document, built from the same route table as the server, so it lists exactly the routes served. No token, but a browser on a foreign origin is refused like on every route.",
	"problemType": "The problem type an error's type member points to: its title, usual status and what it means. Every error code is one problem type. No token.",
	"info":        "What `agent-deck status` shows about the running server: its URL, process id, home, the kind of database and the MCP profile. Never a secret; any token may read it.",
	"metrics":     "The server's metrics in the Prometheus text format (requests, tool calls, sessions, downstream health); any token may read them.",

	// Tool pins and overrides.
	"listHeldTools":   "One view of what is held across every connection to the service (its own credential, each deck's credential, every replica): each held definition with its hash, what changed against the approved pin (old and new description, schema, annotations) and which connection saw it. Approve exactly one with POST /services/{service}/approve and its hash. Admin tokens only.",
	"setToolOverride": "Sets what agents see of one downstream tool in place of its own title, description and annotations (readOnlyHint, destructiveHint, openWorldHint); an agent:read token may call a tool whose override says readOnlyHint: true. Pins keep comparing the downstream's own definition, so an override never hides a change. An empty object clears it. Admin tokens only.",

	// Decks.
	"listDecks":    "Every deck the caller's person may use (an admin: every deck; a member: their own and those shared with them), ordered by name (case-insensitive), with its id, owner, sharing and timestamps; the cards are in GET /decks/{deck}/snapshot.",
	"createDeck":   "Creates an empty deck with a unique name (case-insensitive). Link cards to it with POST /decks/{deck}/cards; agents bind to it by name or id.",
	"getDeck":      "The deck row alone, found by id or exact name; the cards it links are in GET /decks/{deck}/snapshot.",
	"renameDeck":   "Gives the deck a new unique name; its id, cards and bindings stay. Sessions bound to it see the new name on their next read.",
	"deleteDeck":   "Deletes the deck and its links; the cards stay in the collection and sessions bound to it become unbound. Admin tokens only, of the deck's owner or a person with the admin role.",
	"deckSnapshot": "The deck with its services, credentials and playbooks in deck order, as a bound agent sees them, never with secret values. Without budget or cursor the whole deck comes back; with a token budget the answer is one page and more.cursor continues it.",
	"linkCard":     "Links a service, credential or playbook (by id or name) to the deck, at a position among the cards of its type or last; linking a card already on the deck moves it. Answers the deck's cards of that type and any warnings.",
	"unlinkCard":   "Takes a card off the deck (the card stays in the collection). Answers 200 with the deck's remaining cards of that type and a warning for each playbook on the deck that depends on the card.",
	"reorderCards": "Sets the order of every card of one type on the deck: ordered_card_ids must name each of them exactly once. Answers the cards in their new order.",

	"getDeckServiceSettings":    "The deck's rules for one service it links: the tool subset (an allow or deny list) agents on the deck may call and the credential chosen for the service on this deck.",
	"updateDeckServiceSettings": "Changes the deck's tool subset or credential for a linked service. Admin tokens may change anything; agent tokens may only narrow the tools agents can call, never widen them or pick a credential.",
	"setDeckSampling":           "Lets a service on the deck ask the agent's model for completions (MCP sampling), or forbids it again. Off by default; only sessions whose client offers sampling are asked. Admin tokens only.",
	"getDeckProjection":         "Whether sessions bound to the deck list its enabled downstream tools as tools of their own (<service>__<tool>, the downstream's own schema and annotations), with the caps and, when on, how many tools and tokens it projects now and whether a cap stopped the list. Admin tokens only.",
	"setDeckProjection":         "Turns projected tools on or off for the deck. On, bound sessions are sent notifications/tools/list_changed and list the deck's tools after their profile's own, up to max_tools tools and max_tokens model tokens (defaults 40 and 8000); calling one is exactly a call_service_tool. Admin tokens only.",
	"setDeckArgumentCapture":    "Turns on or off the recording of tool-call arguments in the audit trail for calls through the deck; captured arguments are redacted of every secret the server holds. Admin tokens only.",

	// Services.
	"listServices":        "Every registered downstream MCP server, by name, with its health and enabled tool count; secret header values and local environment values are masked.",
	"createService":       "Registers a downstream MCP server: a remote one at an http(s) URL, or a local command the server starts. Secret-looking header values are encrypted; link-local and cloud-metadata hosts are refused unless the server allows them, and private-range hosts need an admin token.",
	"getService":          "One service by id or name, with secret header values and local environment values masked.",
	"updateService":       "Changes the fields given and leaves the others as they are; setting the credential is admin-only. Connections to the service are reopened with the new settings.",
	"deleteService":       "Deletes the service and takes it off every deck; refused with 409 and the dependent playbooks while a playbook depends on it. Admin tokens only, of the service's owner or a person with the admin role.",
	"listServiceTools":    "The service's downstream tools as its server lists them (name, description, input schema), with whether each is enabled. Admins see every tool; agent tokens name a deck linking the service and see only the tools that deck lets them call.",
	"updateToolSettings":  "Sets the full list of the service's disabled tools; agents on no deck can call a disabled tool. Answers the service's tools with their new enabled flags.",
	"callServiceTool":     "Calls one downstream tool with arguments and answers its CallToolResult as the server sent it (minus _meta). A tool that failed on its own terms is still 200 with isError true; a call the deck's rules refuse is 403. Agent tokens name a deck linking the service.",
	"checkService":        "Connects to the service now, lists its tools and stores the health it found (healthy, unhealthy, auth_required). Agent tokens name a deck linking the service.",
	"approveServiceTools": "Pins the current definitions of held tools (the ones named, or all of them) so calls to them go through again after their server changed them. Admin tokens only.",
	"connectService":      "Starts signing Agent Deck in to a service whose server wants OAuth, optionally with a client registered beforehand; answers the authorization URL a person opens to consent. Admin tokens only.",
	"disconnectService":   "Forgets the service's sign-in tokens, revoking them where its authorization server supports revocation. Admin tokens only.",
	"serviceAuth":         "The service's sign-in state: none, connected (with expiry and scopes), needs_sign_in, or error with what went wrong; while a sign-in started by connect waits for its callback, pending is true.",

	// Credentials.
	"listCredentials":  "Every credential's metadata (id, label, env name, type, tags), by label; secret values never leave the server.",
	"createCredential": "Stores a secret under a label; the id (cred_…) and env name are derived from the label unless given. The value is encrypted and never shown again. Admin tokens only.",
	"getCredential":    "One credential's metadata by id or label; never its value.",
	"updateCredential": "Changes a credential's label, description or tags; its id and env name stay. Admin tokens only.",
	"deleteCredential": "Deletes the credential; refused with 409 and the dependent playbooks while a playbook depends on it. Admin tokens only, of the credential's owner or a person with the admin role.",
	"rotateCredential": "Replaces the credential's secret value; services and exec use the new value from their next call. Admin tokens only.",

	// Playbooks.
	"listPlaybooks":          "Every playbook, by title, with its triggers and body.",
	"createPlaybook":         "Creates a playbook from a title, triggers and a Markdown body; its id (pb_…) is derived from the title unless given. Answers the playbook and the cards it was found to depend on.",
	"getPlaybook":            "One playbook by id or title, with its current version's body and triggers.",
	"updatePlaybook":         "Changes the fields given; the previous version is kept and can be restored. Answers the playbook and its dependencies.",
	"deletePlaybook":         "Deletes the playbook, its earlier versions and its links to decks. Admin tokens only, of the playbook's owner or a person with the admin role.",
	"listPlaybookVersions":   "The playbook's earlier versions, newest first, each with its body and triggers as they were.",
	"restorePlaybookVersion": "Makes an earlier version current again; the version it replaces is kept, so a restore can itself be undone.",
	"listDependents":         "The playbooks that depend on a service, credential or playbook (named by id or name): what deleting or unlinking that card would leave without it.",

	// Tokens, sessions, the status line.
	"listTokens":   "API tokens' id, name, scope, person, creation and last use; never a secret. A person with the admin role sees every token, a member their own. Admin tokens only.",
	"createToken":  "Creates an admin, agent or agent:read token for the caller's person, or (admin role) for the person named; the token acts for that person. Its secret is in this answer only and cannot be read again. Admin tokens only.",
	"revokeToken":  "Revokes the token at once on every replica; requests with it are then 401. A member revokes only their own tokens. Admin tokens only.",
	"listSessions": "The MCP sessions seen within the idle timeout, most recently seen first: client, profile, workspace root and the deck each is bound to.",
	"display":      "The status line `agent-deck statusline` prints for a workspace: the deck of the live session bound at the nearest enclosing workspace root, or the unbound line.",

	// Export, import, exec.
	"exportBundle":    "The whole collection, or one deck with everything it links, as a bundle: services, credentials (without values), playbooks and decks. Admin tokens only.",
	"exportSelection": "Like GET /export, with the deck to export (or none, for everything) in the body. Admin tokens only.",
	"importBundle":    "Imports a bundle in one transaction: everything or nothing. With dry_run it reports what would be created and changed without writing. Admin tokens only.",
	"startExec":       "Resolves credentials' secrets for `agent-deck exec` and opens an exec audit row; the answer holds the secret values as environment variables. Admin tokens only.",
	"finishExec":      "Records how the command started by exec ended (its exit code) on its audit row. Admin tokens only.",
	"listExecAudits":  "The exec audit trail, newest first: which command ran with which credentials, when, and how it ended; never a value. Admin tokens only.",

	// The learning loop.
	"listProposals":  "Playbook change proposals agents made, newest first, filtered by status, playbook or deck. Admin tokens only.",
	"showProposal":   "A proposal with a preview against the current playbook: the unified diff of the body, triggers before and after, and the ops that no longer apply. Admin tokens only.",
	"acceptProposal": "Applies the proposal's ops to the current playbook in one transaction, as a new version. If any op no longer applies the proposal becomes stale: 409, nothing changed. Admin tokens only.",
	"rejectProposal": "Rejects the proposal with an optional reason; the feedback signals it resolved become open again. Admin tokens only.",
	"listSignals":    "The feedback signals agents recorded about playbooks (what worked, what was missing), newest first. Admin tokens only.",
	"discardSignals": "Discards the named signals: all of them, or none when one cannot be. Admin tokens only.",
	"importSignals":  "Records feedback signals in bulk, as agents would: all of them, or none when one is refused. Admin tokens only.",
	"playbookUsage":  "How often agents fetched each playbook within the fetch retention, and when last: which playbooks earn their place. Admin tokens only.",

	// The dashboard's sign-in.
	"createSignInCode": "A one-time code, valid two minutes, that signs a browser in to the dashboard (`agent-deck dashboard` opens the page with it). Admin tokens only.",
	"signIn":           "Trades a one-time sign-in code for the dashboard's session cookie (HttpOnly, SameSite=Strict) and answers the session's CSRF token. No token.",
	"dashboardSession": "The session of the dashboard's cookie, with the CSRF token requests that change something must send in the X-Agent-Deck-CSRF header.",
	"signOut":          "Revokes the cookie's dashboard session and clears the cookie.",

	// Agent Deck's own OAuth authorization server.
	"resourceMetadata":    "OAuth 2.0 Protected Resource Metadata (RFC 9728) of /mcp: the resource URL and the authorization server that issues tokens for it. No token.",
	"mcpResourceMetadata": "The same metadata at the path-suffixed address RFC 9728 also defines, for clients that look there first. No token.",
	"authServerMetadata":  "OAuth 2.0 Authorization Server Metadata (RFC 8414): the endpoints, PKCE S256, the scopes and grant types Agent Deck's authorization server supports. No token.",
	"oauthRegister":       "Dynamic Client Registration (RFC 7591) for public clients with loopback redirect URIs. Errors use OAuth's own shape, {\"error\",\"error_description\"}. No token.",
	"oauthAuthorize":      "Checks an authorization request (client, redirect URI, PKCE, resource) and redirects the browser to the dashboard's consent screen; a bad request is answered on the page or at the redirect URI, as RFC 6749 says. No token.",
	"oauthToken":          "Trades an authorization code (with its PKCE verifier) or a refresh token for an access token; form-encoded, errors in OAuth's own shape (RFC 6749 §5.2). No token.",
	"oauthConsentInfo":    "What the consent screen shows about an authorization request: the client, its redirect URI, the scope asked for and the decks it may be bound to. Admin tokens only.",
	"oauthConsent":        "Allows (with a scope and an optional deck) or denies an authorization request, and answers the URL the browser goes to next. Admin tokens only.",

	// Signing Agent Deck in to services.
	"oauthCallback":  "Where a service's authorization server sends the person's browser after consent; finishes the sign-in and answers a page saying it worked or why not. No token.",
	"clientMetadata": "Agent Deck's OAuth Client ID Metadata Document, which authorization servers of services it signs in to fetch to learn its name and redirect URI. No token.",

	// Runtime profiles (serve --pprof).
	"pprofIndex":   "The index of the Go runtime profiles, served only when the server runs with --pprof. Admin tokens only: a profile shows memory and call paths.",
	"pprofProfile": "One Go runtime profile (heap, goroutine, profile with ?seconds=, trace, …), served only with --pprof. Admin tokens only.",

	// The audit trail.
	"listToolCalls": "The tool-call audit trail, newest first: who called which downstream tool through which deck, when, how long it took and how it ended; filters by service, deck, session, tool, outcome and time. Pages with limit and cursor: next_cursor in the body continues it, and the Link header with rel=\"next\" gives the URL of the next page. Admin tokens only.",

	// Rate limits and playbook review.
	"getDeckLimits":         "The calls-per-minute and calls-in-flight limits that apply to the deck's services, each with where it comes from (the deck, the service, or the server's default). Any token that may read the deck.",
	"setDeckLimits":         "Overrides the limits for every service reached through the deck; null inherits, 0 means no limit. The body is the new setting; the answer is the limits as they now apply. Admin tokens only.",
	"getDeckServiceLimits":  "The limits that apply to one service reached through one deck, each with where it comes from.",
	"setDeckServiceLimits":  "Overrides the limits of one service reached through one deck; null inherits, 0 means no limit. Admin tokens only.",
	"getServiceLimits":      "The limits of one service through any deck, each with where it comes from.",
	"setServiceLimits":      "Overrides the limits of one service through every deck; null inherits, 0 means no limit. Admin tokens only.",
	"getDeckPlaybookReview": "Whether an agent token's playbook writes on the deck become proposals for a person to review, and whether that is the deck's own setting or the server's default.",
	"setDeckPlaybookReview": "Holds agent tokens' playbook writes on the deck for review (true), lets them take effect (false), or follows the server's default (null). Changes to exec and skill need an admin whatever the setting. Admin tokens only.",

	// Dashboard reads and actions.
	"previewMarkdown":        "Renders markdown (CommonMark with GitHub's tables, task lists, strikethrough and autolinks) to HTML with every script, handler and unsafe URL removed, for the dashboard's previews. Agents read the markdown itself; nothing is stored. Any reading token.",
	"getDeckArgumentCapture": "Whether calls made through the deck keep their arguments in the audit trail (redacted of every secret the server holds). Admin tokens only.",
	"getToolCall":            "One entry of the tool-call audit trail by its id: who called which tool of which service through which deck and session, how long it took, how it ended, and the arguments when the deck captures them. Admin tokens only.",
	"endSession":             "Ends a live MCP session at once: its next request gets 404 and its client must start a new session (revoke the token to keep it out). Admin tokens only.",
	"getDeckSampling":        "Whether a service linked to the deck may ask the agent's model for completions (MCP sampling); off unless an admin allowed it. Admin tokens only.",
	"toolCallStats":          "Calls, failures and latency (median and 95th percentile) per service, or per tool of one service, in time buckets, counted by PostgreSQL over the audit trail; what the dashboard's charts draw. Admin tokens only.",
	// People.
	"me":              "The person the caller's token acts for: id, name, role and sign-in e-mail. Any token.",
	"listPeople":      "The people of the hub, by name. A member sees names and roles only; with removed=true an admin also sees removed people. Admin tokens only.",
	"addPerson":       "Adds a person with the role admin or member, and optionally the e-mail or OpenID Connect subject their dashboard sign-in maps to. Make them a token with POST /tokens {\"person\"} or a sign-in code with POST /dashboard/signin-codes?person=. Admin role only.",
	"updatePerson":    "Changes a person's role, e-mail or OpenID Connect subject; the last admin cannot become a member. Every replica applies the new role at once. Admin role only.",
	"removePerson":    "Removes a person: their tokens are revoked, their dashboard sessions and MCP sessions end at once on every replica; their decks and cards stay (an admin may hand them on). Answers what was revoked. Admin role only.",
	"setOwnSecret":    "Sets the caller's own secret for a credential whose secret each person brings (or for the credential of a personal service): calls by this person send it, nobody else's. Write-only: never shown again, admins included. Admin tokens only (the person's own CLI or dashboard).",
	"deleteOwnSecret": "Forgets the caller's own secret for a credential; their calls then get CREDENTIAL_MISSING with the command to set one. Admin tokens only.",
	"shareDeck":       "Makes a deck private, shares it with everyone or with named people, or hands it to another person. Only its owner or a person with the admin role. Agent tokens of people it is unshared from lose it at once. Admin tokens only.",
	"signInOptions":   "The ways the dashboard's sign-in page offers: the one-time code always, and OpenID Connect with its start URL when the server is configured for it. No token.",
}
