package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// A catalog (tests/testdata/catalog/deck50.txt) describes many services of many tools; with
// -catalog the peer serves each service as an MCP server of its own at /<service>/mcp, so one
// process stands in for a deck of fifty servers. Its tools answer every call with what they
// were called with, as JSON: {"service","tool","arguments"}.

// catalogService is one service of a catalog, its tools rendered.
type catalogService struct {
	name  string
	tools []mcp.Tool
}

// catalogTemplate is a tool line of a category, before a product fills it in.
type catalogTemplate struct {
	name, title, description, params string
	readOnly                         bool
}

// readCatalog parses a catalog file: categories of tool lines, read by each product of the
// category with {P} and its own {keys} replaced.
func readCatalog(path string) ([]catalogService, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	type product struct {
		name string
		vars map[string]string
	}
	var out []catalogService
	var products []product
	var lines []catalogTemplate
	flush := func() error {
		for _, p := range products {
			svc := catalogService{name: p.name}
			for _, l := range lines {
				t, err := l.render(p.vars)
				if err != nil {
					return fmt.Errorf("%s: %w", p.name, err)
				}
				svc.tools = append(svc.tools, t)
			}
			out = append(out, svc)
		}
		products, lines = nil, nil
		return nil
	}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "@"):
			if err := flush(); err != nil {
				return nil, err
			}
		case strings.HasPrefix(line, "="):
			parts := splitBar(strings.TrimPrefix(line, "="))
			if len(parts) != 3 {
				return nil, fmt.Errorf("line %d: want = name | Display | key=value; …", n)
			}
			vars := map[string]string{"P": parts[1]}
			for _, kv := range strings.Split(parts[2], ";") {
				if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok {
					vars[k] = v
				}
			}
			products = append(products, product{name: parts[0], vars: vars})
		default:
			parts := splitBar(line)
			if len(parts) != 5 {
				return nil, fmt.Errorf("line %d: want name | title | description | params | r or w", n)
			}
			lines = append(lines, catalogTemplate{name: parts[0], title: parts[1], description: parts[2],
				params: parts[3], readOnly: parts[4] == "r"})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, flush()
}

func splitBar(s string) []string {
	parts := strings.Split(s, "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// render fills the template in for one product: the tool with its JSON schema and annotations.
func (l catalogTemplate) render(vars map[string]string) (mcp.Tool, error) {
	fill := func(s string) string {
		for k, v := range vars {
			s = strings.ReplaceAll(s, "{"+k+"}", v)
		}
		return s
	}
	props := map[string]any{}
	required := []string{}
	for _, p := range strings.Split(l.params, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		name, typ, _ := strings.Cut(strings.TrimSuffix(p, "*"), ":")
		if typ == "" {
			typ = "string"
		}
		schema := map[string]any{"type": typ}
		if typ == "array" {
			schema["items"] = map[string]any{"type": "string"}
		}
		props[name] = schema
		if strings.HasSuffix(p, "*") {
			required = append(required, name)
		}
	}
	schema, err := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required})
	if err != nil {
		return mcp.Tool{}, err
	}
	name := fill(l.name)
	if strings.Contains(name, "{") {
		return mcp.Tool{}, fmt.Errorf("tool %s: a placeholder has no value", name)
	}
	t := mcp.NewToolWithRawSchema(name, fill(l.description), schema)
	t.Annotations = mcp.ToolAnnotation{Title: fill(l.title), ReadOnlyHint: mcp.ToBoolPtr(l.readOnly),
		DestructiveHint: mcp.ToBoolPtr(!l.readOnly && strings.HasPrefix(name, "delete")),
		IdempotentHint:  mcp.ToBoolPtr(l.readOnly), OpenWorldHint: mcp.ToBoolPtr(true)}
	return t, nil
}

// catalogHandler serves every service of the catalog at /<service>/mcp.
func catalogHandler(path string) (http.Handler, error) {
	services, err := readCatalog(path)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	for _, svc := range services {
		s := server.NewMCPServer(svc.name, "1.0.0", server.WithToolCapabilities(true))
		for _, t := range svc.tools {
			s.AddTool(t, catalogCall(svc.name, t.Name))
		}
		mux.Handle("/"+svc.name+"/mcp", server.NewStreamableHTTPServer(s,
			server.WithStreamableHTTPProtocolVersions("2025-11-25", "2025-06-18", "2025-03-26"),
			server.WithEndpointPath("/"+svc.name+"/mcp")))
	}
	return mux, nil
}

func catalogCall(service, tool string) server.ToolHandlerFunc {
	return func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		b, _ := json.Marshal(map[string]any{"service": service, "tool": tool, "arguments": req.GetArguments()})
		return mcp.NewToolResultText(string(b)), nil
	}
}
