// Command client is Agent Deck's downstream side as the MCP conformance suite's client under
// test: `conformance client --command "client" --scenario S` runs it with the scenario server's
// URL. It registers that URL as a service in a running deck server (AGENT_DECK_URL, with the
// admin token in AGENT_DECK_TOKEN), signs the deck in when the service asks for it (opening the
// authorization URL and following its redirects back to the deck, as a browser would), then
// lists the service's tools and calls each through the hub's /mcp endpoint, as an agent would:
// an MCP session bound to a deck holding the service, call_service_tool, and an elicitation
// handler that accepts with empty content (the hub fills in the schema's defaults).
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

type deck struct {
	base, token string
	http        *http.Client
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: client SERVER_URL (with AGENT_DECK_URL and AGENT_DECK_TOKEN set)")
		os.Exit(2)
	}
	d := deck{base: strings.TrimSuffix(os.Getenv("AGENT_DECK_URL"), "/"), token: os.Getenv("AGENT_DECK_TOKEN"),
		http: &http.Client{Timeout: 30 * time.Second}}
	if err := run(d, os.Args[len(os.Args)-1]); err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
}

func run(d deck, serverURL string) error {
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	name := "conformance-" + hex.EncodeToString(suffix)
	created, err := d.do(http.MethodPost, "/api/v1/services", map[string]any{"name": name, "type": "mcp", "url": serverURL}, 201)
	if err != nil {
		return err
	}
	defer func() { _, _ = d.do(http.MethodDelete, "/api/v1/services/"+name, nil, 204) }()
	var svc struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(created, &svc); err != nil || svc.ID == "" {
		return fmt.Errorf("create service answered %s", created)
	}
	if _, err := d.do(http.MethodPost, "/api/v1/decks", map[string]any{"name": name}, 201); err != nil {
		return err
	}
	defer func() { _, _ = d.do(http.MethodDelete, "/api/v1/decks/"+name, nil, 204) }()
	if _, err := d.do(http.MethodPost, "/api/v1/decks/"+name+"/cards", map[string]any{"card_type": "service", "card_id": svc.ID}, 200); err != nil {
		return err
	}
	body, err := d.do(http.MethodGet, "/api/v1/services/"+name+"/tools", nil, 0)
	if err != nil {
		return err
	}
	if strings.Contains(string(body), "DOWNSTREAM_AUTH") {
		if err := d.connect(name); err != nil {
			return err
		}
		if body, err = d.do(http.MethodGet, "/api/v1/services/"+name+"/tools", nil, 200); err != nil {
			return err
		}
	}
	var tools []struct {
		Name string `json:"name"`
		Tool struct {
			InputSchema struct {
				Properties map[string]struct {
					Type string `json:"type"`
				} `json:"properties"`
			} `json:"inputSchema"`
		} `json:"tool"`
	}
	if err := json.Unmarshal(body, &tools); err != nil {
		return fmt.Errorf("tools: %w: %s", err, body)
	}
	agent, err := d.agent(name)
	if err != nil {
		return err
	}
	defer func() { _ = agent.Close() }()
	for _, tool := range tools {
		args := map[string]any{}
		for p, s := range tool.Tool.InputSchema.Properties {
			switch s.Type {
			case "number", "integer":
				args[p] = 1
			case "boolean":
				args[p] = true
			default:
				args[p] = "x"
			}
		}
		if err := d.call(agent, name, tool.Name, args); err != nil {
			return err
		}
	}
	return nil
}

// agent opens an MCP session on the hub's /mcp, bound to the deck holding the service, that
// accepts every elicitation with empty content.
func (d deck) agent(deckName string) (*client.Client, error) {
	tr, err := transport.NewStreamableHTTP(d.base+"/mcp", transport.WithHTTPHeaders(map[string]string{
		"Authorization": "Bearer " + d.token, "x-agent-deck-deck-id": deckName}))
	if err != nil {
		return nil, err
	}
	c := client.NewClient(tr, client.WithElicitationHandler(acceptEmpty{}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(context.Background()); err != nil {
		return nil, err
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "agent-deck-conformance-client", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("initialize /mcp: %w", err)
	}
	return c, nil
}

// acceptEmpty answers every elicitation with accept and no content, leaving the schema's
// defaults to the hub.
type acceptEmpty struct{}

func (acceptEmpty) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}}, nil
}

// call calls a tool through call_service_tool; when the service refuses for want of scope (a
// step-up leaves the service's sign-in at needs_sign_in), it signs in again, as the person the
// error names would, and retries. The deck bounds the step-ups; so does this loop.
func (d deck) call(agent *client.Client, name, tool string, args map[string]any) error {
	for try := 0; ; try++ {
		text, err := callTool(agent, name, tool, args)
		if err == nil || try == 3 || !strings.Contains(text, "DOWNSTREAM_AUTH") {
			return err
		}
		auth, aerr := d.do(http.MethodGet, "/api/v1/services/"+name+"/auth", nil, 200)
		if aerr != nil || !strings.Contains(string(auth), `"needs_sign_in"`) {
			return err
		}
		if err := d.connect(name); err != nil {
			return err
		}
	}
}

// callTool runs call_service_tool and returns the result's text; an error result is an error.
func callTool(agent *client.Client, service, tool string, args map[string]any) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = "call_service_tool"
	req.Params.Arguments = map[string]any{"serviceId": service, "toolName": tool, "arguments": args}
	res, err := agent.CallTool(ctx, req)
	if err != nil {
		return "", fmt.Errorf("call_service_tool %s: %w", tool, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		return text.String(), fmt.Errorf("call_service_tool %s failed: %s", tool, text.String())
	}
	return text.String(), nil
}

// connect starts the sign-in and opens the authorization URL, following every redirect as a
// browser would: the authorization server approves at once and sends it back to the deck.
func (d deck) connect(name string) error {
	// A scenario that pre-registers a client passes its id and secret in the context.
	var pre struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	_ = json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &pre)
	in := map[string]any{}
	if pre.ClientID != "" {
		in["client_id"], in["client_secret"] = pre.ClientID, pre.ClientSecret
	}
	body, err := d.do(http.MethodPost, "/api/v1/services/"+name+"/connect", in, 200)
	if err != nil {
		return err
	}
	var started struct {
		AuthURL string `json:"authorization_url"`
	}
	if err := json.Unmarshal(body, &started); err != nil || started.AuthURL == "" {
		return fmt.Errorf("connect answered %s", body)
	}
	if _, err := url.Parse(started.AuthURL); err != nil {
		return err
	}
	resp, err := d.http.Get(started.AuthURL)
	if err != nil {
		return fmt.Errorf("browser: %w", err)
	}
	page, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("sign-in ended with %d: %s", resp.StatusCode, page)
	}
	return nil
}

// do sends one REST request; want 0 accepts any status.
func (d deck) do(method, path string, in any, want int) ([]byte, error) {
	var rd io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, d.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+d.token)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	out, _ := io.ReadAll(resp.Body)
	if want != 0 && resp.StatusCode != want {
		return out, fmt.Errorf("%s %s answered %d: %s", method, path, resp.StatusCode, out)
	}
	return out, nil
}
