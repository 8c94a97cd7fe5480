package tests

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	composecli "github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"

	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// Issue 26, item 6: the container image and the compose file of a team hub, read by the
// libraries Docker and Compose themselves use, and built and run with podman where it can.

func readDockerfile(t *testing.T) []instructions.Stage {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := parser.Parse(f)
	if err != nil {
		t.Fatalf("parsing the Dockerfile: %v", err)
	}
	for _, w := range res.Warnings {
		t.Errorf("Dockerfile warning: %s", w.Short)
	}
	stages, _, err := instructions.Parse(res.AST, nil)
	if err != nil {
		t.Fatalf("reading the Dockerfile's instructions: %v", err)
	}
	return stages
}

// TestDockerfile: a static build (no cgo) in a build stage, and a final stage that runs
// `agent-deck serve` as an unprivileged user, listening beyond loopback, with no database of
// its own.
func TestDockerfile(t *testing.T) {
	stages := readDockerfile(t)
	if len(stages) < 2 {
		t.Fatalf("%d stages, want a build stage and a runtime stage", len(stages))
	}
	build, final := stages[0], stages[len(stages)-1]
	var built bool
	for _, c := range build.Commands {
		if r, ok := c.(*instructions.RunCommand); ok {
			line := strings.Join(r.CmdLine, " ")
			built = built || strings.Contains(line, "CGO_ENABLED=0") && strings.Contains(line, "go build") &&
				strings.Contains(line, "./cmd/agent-deck")
		}
	}
	if !built {
		t.Error("the build stage does not build ./cmd/agent-deck statically (CGO_ENABLED=0 go build)")
	}
	var user, entry, cmd string
	env := map[string]string{}
	var exposed []string
	for _, c := range final.Commands {
		switch c := c.(type) {
		case *instructions.UserCommand:
			user = c.User
		case *instructions.EntrypointCommand:
			entry = strings.Join(c.CmdLine, " ")
		case *instructions.CmdCommand:
			cmd = strings.Join(c.CmdLine, " ")
		case *instructions.EnvCommand:
			for _, kv := range c.Env {
				env[kv.Key] = kv.Value
			}
		case *instructions.ExposeCommand:
			exposed = append(exposed, c.Ports...)
		case *instructions.RunCommand:
			t.Errorf("the runtime stage runs %q: it should only copy the static binary", c.CmdLine)
		}
	}
	if user == "" || user == "root" || user == "0" || strings.HasPrefix(user, "0:") {
		t.Errorf("USER %q: the image must run as an unprivileged user", user)
	}
	if !strings.HasSuffix(entry, "agent-deck") || cmd != "serve" {
		t.Errorf("ENTRYPOINT %q CMD %q, want agent-deck serve", entry, cmd)
	}
	if env["AGENT_DECK_ALLOW_REMOTE"] != "1" || !strings.HasPrefix(env["AGENT_DECK_ADDR"], "0.0.0.0:") || !slices.Contains(exposed, "1110") {
		t.Errorf("env %v, exposed %v: want a listener beyond loopback on 1110", env, exposed)
	}
	if _, ok := env["AGENT_DECK_DATABASE_URL"]; ok {
		t.Error("the image sets a database URL: it is the deployment's, given at run time")
	}
	raw, _ := os.ReadFile(filepath.Join("..", "Dockerfile"))
	if strings.Contains(strings.ToLower(string(raw)), "postgresql-") || strings.Contains(string(raw), "initdb") {
		t.Error("the image carries a PostgreSQL server; it runs against an external database")
	}
}

// TestComposeFile: PostgreSQL, two replicas sharing one secret key and one database URL given as
// container secrets (the *_FILE variables), and a TLS front that reaches both.
func TestComposeFile(t *testing.T) {
	ctx := context.Background()
	opts, err := composecli.NewProjectOptions([]string{filepath.Join("..", "deploy", "compose.yaml")},
		composecli.WithEnv([]string{"AGENT_DECK_DOMAIN=deck.example.com"}), composecli.WithConsistency(true))
	if err != nil {
		t.Fatal(err)
	}
	p, err := opts.LoadProject(ctx)
	if err != nil {
		t.Fatalf("loading deploy/compose.yaml: %v", err)
	}
	if p.Name != "agent-deck" {
		t.Errorf("project %q", p.Name)
	}
	for _, name := range []string{"postgres", "deck-1", "deck-2", "front"} {
		if _, ok := p.Services[name]; !ok {
			t.Fatalf("no service %q in %v", name, p.ServiceNames())
		}
	}
	var images []string
	for _, name := range []string{"deck-1", "deck-2"} {
		s := p.Services[name]
		images = append(images, s.Image)
		want := map[string]string{"AGENT_DECK_DATABASE_URL_FILE": "/run/secrets/database_url",
			"AGENT_DECK_SECRET_KEY_FILE": "/run/secrets/secret_key", "AGENT_DECK_ALLOW_REMOTE": "1",
			"AGENT_DECK_ALLOW_ORIGIN": "https://deck.example.com"}
		for k, v := range want {
			if got := s.Environment[k]; got == nil || *got != v {
				t.Errorf("%s: %s = %v, want %q", name, k, got, v)
			}
		}
		var secrets []string
		for _, sec := range s.Secrets {
			secrets = append(secrets, sec.Source)
		}
		if !slices.Contains(secrets, "database_url") || !slices.Contains(secrets, "secret_key") {
			t.Errorf("%s: secrets %v, want database_url and secret_key", name, secrets)
		}
		if dep, ok := s.DependsOn["postgres"]; !ok || dep.Condition != types.ServiceConditionHealthy {
			t.Errorf("%s: does not wait for a healthy postgres: %+v", name, s.DependsOn)
		}
		if s.Build == nil || !strings.HasSuffix(s.Build.Dockerfile, "Dockerfile") {
			t.Errorf("%s: not built from the Dockerfile: %+v", name, s.Build)
		}
	}
	if images[0] != images[1] {
		t.Errorf("the replicas run different images: %v", images)
	}
	if v := p.Services["deck-1"].Volumes; len(v) != 1 || v[0].Source == p.Services["deck-2"].Volumes[0].Source {
		t.Errorf("the replicas share a data home: %+v", v)
	}
	front := p.Services["front"]
	var ports []uint32
	for _, port := range front.Ports {
		ports = append(ports, port.Target)
	}
	if !slices.Contains(ports, 443) {
		t.Errorf("the front publishes %v, want 443 (TLS in front)", ports)
	}
	caddy, err := os.ReadFile(filepath.Join("..", "deploy", "Caddyfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"deck-1:1110", "deck-2:1110", "flush_interval -1"} {
		if !strings.Contains(string(caddy), want) {
			t.Errorf("the Caddyfile lacks %q", want)
		}
	}
}

// TestContainerImage builds the image with podman and runs it against the test's PostgreSQL.
// It skips, saying why, where podman is missing, cannot fetch the base images (no registry
// reachable) or cannot start containers.
func TestContainerImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a container image")
	}
	podman, err := exec.LookPath("podman")
	if err != nil {
		t.Skip("podman is not installed; the image is checked by TestDockerfile only")
	}
	run := func(timeout time.Duration, args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, podman, args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	for _, image := range []string{"docker.io/library/golang:1.26.8-bookworm", "gcr.io/distroless/static-debian12:nonroot"} {
		if _, err := run(2*time.Minute, "image", "exists", image); err == nil {
			continue
		}
		if out, err := run(2*time.Minute, "pull", "--quiet", image); err != nil {
			t.Skipf("podman cannot fetch the base image %s (%v): %s", image, err, lastLine(out))
		}
	}
	tag := "localhost/agent-deck-test:" + randHex(4)
	if out, err := run(20*time.Minute, "build", "-t", tag, "-f", filepath.Join("..", "Dockerfile"), ".."); err != nil {
		t.Fatalf("podman build: %v\n%s", err, out)
	}
	t.Cleanup(func() { _, _ = run(time.Minute, "rmi", "-f", tag) })
	name := "agent-deck-test-" + randHex(4)
	out, err := run(2*time.Minute, "run", "-d", "--name", name, "--network", "host",
		"-e", "AGENT_DECK_DATABASE_URL="+pgtest.NewDB(t), "-e", "AGENT_DECK_ADDR=127.0.0.1:0", tag)
	if err != nil {
		t.Skipf("podman cannot start containers here (%v): %s", err, lastLine(out))
	}
	t.Cleanup(func() { _, _ = run(time.Minute, "rm", "-f", name) })
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		logs, _ := run(time.Minute, "logs", name)
		if i := strings.Index(logs, `"url":"http://`); i >= 0 {
			url := strings.SplitN(logs[i+7:], `"`, 2)[0]
			resp, err := http.Get(url + "/readyz")
			if err == nil && resp.StatusCode == http.StatusOK {
				resp.Body.Close()
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	logs, _ := run(time.Minute, "logs", name)
	t.Fatalf("the container did not become ready:\n%s", logs)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return fmt.Sprint(lines[len(lines)-1])
}
