// Command peer is a small MCP server that Agent Deck's tests reach through the proxy. It serves
// stdio, Streamable HTTP or SSE, and its tools exercise everything the proxy must carry: echo,
// slow and failing calls, large and binary results, the headers and env it received, a tool list
// that changes at run time, and a crash on demand. One resource, peer://whoami, reports the
// credential headers a read arrived with.
//
//	peer -transport stdio
//	peer -transport http -addr 127.0.0.1:0 [-url-file F]   (prints http://…/mcp)
//	peer -transport sse  -addr 127.0.0.1:0 [-url-file F]   (prints http://…/sse)
//	peer -relay URL      -addr 127.0.0.1:0 [-url-file F]   (prints http://…/<URL's path>)
//	peer -catalog FILE   -addr 127.0.0.1:0 [-url-file F]   (prints http://…; services at /<name>/mcp)
//
// With -relay it serves no tools: it is the thinnest possible hop in front of another server,
// Go's own reverse proxy and nothing else, which the proxy benchmark measures as the floor of
// what any HTTP hop costs.
//
// PEER_REQUIRE_AUTHORIZATION, when set, makes the HTTP transports answer 401 to any request whose
// Authorization header differs from it. PEER_FAIL_CALLS_ECHOING_HEADERS, when set, makes them
// answer every tools/call with HTTP 500 and an error body quoting every request header in clear:
// a hostile or careless server whose error page echoes the key it was sent.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

func main() {
	transport := flag.String("transport", "stdio", "stdio, http or sse")
	addr := flag.String("addr", "127.0.0.1:0", "listen address for http and sse")
	urlFile := flag.String("url-file", "", "write the listen URL to this file instead of stdout")
	pageSize := flag.Int("page-size", 0, "tools/list page size (0 = one page)")
	hang := flag.Bool("hang", false, "sleep until killed (used for grandchildren)")
	relay := flag.String("relay", "", "relay every request to this URL's server (a bare HTTP hop)")
	catalog := flag.String("catalog", "", "serve each service of this catalog file at /<service>/mcp (catalog.go)")
	flag.Parse()

	if *hang {
		select {}
	}
	if *relay != "" {
		if err := serveRelay(*relay, *addr, *urlFile); err != nil {
			fmt.Fprintln(os.Stderr, "peer:", err)
			os.Exit(1)
		}
		return
	}
	if *catalog != "" {
		if err := serveCatalog(*catalog, *addr, *urlFile); err != nil {
			fmt.Fprintln(os.Stderr, "peer:", err)
			os.Exit(1)
		}
		return
	}
	fmt.Fprintf(os.Stderr, "peer: starting pid=%d transport=%s\n", os.Getpid(), *transport)
	var opts []server.ServerOption
	opts = append(opts, server.WithToolCapabilities(true), server.WithResourceCapabilities(false, false),
		server.WithLogging(), server.WithElicitation())
	if *pageSize > 0 {
		opts = append(opts, server.WithPaginationLimit(*pageSize))
	}
	s := server.NewMCPServer("agent-deck-peer", "1.0.0", opts...)
	addTools(s)
	addResources(s)

	var err error
	switch *transport {
	case "stdio":
		err = server.ServeStdio(s)
	case "http", "sse":
		err = serveHTTP(s, *transport, *addr, *urlFile)
	default:
		err = fmt.Errorf("unknown transport %q", *transport)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "peer:", err)
		os.Exit(1)
	}
}

// serveHTTP listens on addr, announces the endpoint URL and serves until SIGTERM/SIGINT.
func serveHTTP(s *server.MCPServer, transport, addr, urlFile string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	var handler http.Handler
	var endpoint string
	switch transport {
	case "http":
		handler = server.NewStreamableHTTPServer(s,
			server.WithStreamableHTTPProtocolVersions("2025-11-25", "2025-06-18", "2025-03-26"),
			server.WithEventStore(server.NewInMemoryEventStore()),
		)
		endpoint = base + "/mcp"
	default:
		handler = server.NewSSEServer(s, server.WithBaseURL(base))
		endpoint = base + "/sse"
	}
	srv := &http.Server{Handler: requireAuth(failCallsEchoingHeaders(handler)), ReadHeaderTimeout: 10 * time.Second}
	if err := announce(endpoint, urlFile); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// serveCatalog serves a catalog's services over Streamable HTTP and announces the base URL;
// each service is at <base>/<service>/mcp.
func serveCatalog(path, addr, urlFile string) error {
	handler, err := catalogHandler(path)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	if err := announce("http://"+ln.Addr().String(), urlFile); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// serveRelay forwards every request to upstream's server with net/http/httputil's reverse
// proxy over a pooled transport, flushing streamed answers as they come, until SIGTERM/SIGINT.
// It checks nothing.
func serveRelay(upstream, addr, urlFile string) error {
	target, err := url.Parse(upstream)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	rp := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(&url.URL{Scheme: target.Scheme, Host: target.Host}) },
		FlushInterval: -1,
		// Pooled as the hub's downstream client is (proxy/remote.go): http.DefaultTransport keeps
		// 2 idle connections per host, so under 16 sessions it would open and close connections
		// the hub keeps, and the yardstick would be handicapped.
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        128,
			MaxIdleConnsPerHost: 128,
			IdleConnTimeout:     90 * time.Second,
		},
	}
	// Full duplex: over HTTP/1 the server would drain and close a request's body when the
	// answer's header goes out, while the proxy's transport may still read it once more, and
	// that failed read cuts the answer (golang/go#40747).
	relay := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := http.NewResponseController(w).EnableFullDuplex(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		rp.ServeHTTP(w, r)
	})
	srv := &http.Server{Handler: relay, ReadHeaderTimeout: 10 * time.Second}
	if err := announce("http://"+ln.Addr().String()+target.Path, urlFile); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// announce tells the test where the server listens: on stdout, or atomically in a file.
func announce(endpoint, urlFile string) error {
	if urlFile == "" {
		_, err := fmt.Println(endpoint)
		return err
	}
	tmp := urlFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(endpoint+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, urlFile)
}

// requireAuth answers 401 when PEER_REQUIRE_AUTHORIZATION is set and not matched.
func requireAuth(next http.Handler) http.Handler {
	want := os.Getenv("PEER_REQUIRE_AUTHORIZATION")
	if want == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != want {
			w.Header().Set("WWW-Authenticate", `Bearer realm="peer"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// failCallsEchoingHeaders answers tools/call with a 500 whose body quotes the request headers,
// when PEER_FAIL_CALLS_ECHOING_HEADERS is set; the handshake and tools/list still work.
func failCallsEchoingHeaders(next http.Handler) http.Handler {
	if os.Getenv("PEER_FAIL_CALLS_ECHOING_HEADERS") == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), `"tools/call"`) {
			r.Body = io.NopCloser(strings.NewReader(string(body)))
			next.ServeHTTP(w, r)
			return
		}
		var b strings.Builder
		b.WriteString("peer exploded; request headers were:")
		for k, v := range r.Header {
			fmt.Fprintf(&b, " %s=%s", k, strings.Join(v, ","))
		}
		http.Error(w, b.String(), http.StatusInternalServerError)
	})
}
