package tests

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	composecli "github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"golang.org/x/sys/unix"

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

// TestContainerImage builds the image with podman and runs it against the test's PostgreSQL:
// it answers /readyz and /healthz, and its process runs as the image's unprivileged user. With
// the Dockerfile's base images at hand (pulled, or already present) it builds the Dockerfile
// itself. Without a registry it builds the Dockerfile's runtime stage on scratch instead, with
// the static binary built here in place of the build stage's and the nonroot home distroless
// brings. It skips, saying why, where podman is missing or cannot start containers.
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
	tag := "localhost/agent-deck-test:" + randHex(4)
	build := []string{"build", "-t", tag, "-f", filepath.Join("..", "Dockerfile"), ".."}
	for _, image := range []string{"docker.io/library/golang:1.26.8-bookworm", "gcr.io/distroless/static-debian12:nonroot"} {
		if _, err := run(time.Minute, "image", "exists", image); err == nil {
			continue
		}
		if out, err := run(time.Minute, "pull", "--quiet", image); err != nil {
			t.Logf("podman cannot fetch the base image %s (%v): %s; building the runtime stage on scratch", image, err, lastLine(out))
			build = []string{"build", "-t", tag, scratchContext(t)}
			break
		}
	}
	if out, err := run(20*time.Minute, build...); err != nil {
		t.Fatalf("podman %s: %v\n%s", strings.Join(build, " "), err, out)
	}
	t.Cleanup(func() { _, _ = run(time.Minute, "rmi", "-f", tag) })

	dbURL := pgtest.NewDB(t)
	name := "agent-deck-test-" + randHex(4)
	args := []string{"run", "-d", "--name", name, "--network", "host",
		"--ulimit", "nofile=" + rlimit(unix.RLIMIT_NOFILE, 65536), "--ulimit", "nproc=" + rlimit(unix.RLIMIT_NPROC, 4096),
		"-e", "AGENT_DECK_DATABASE_URL=" + dbURL, "-e", "AGENT_DECK_ADDR=127.0.0.1:0"}
	if u, err := url.Parse(dbURL); err == nil && strings.HasPrefix(u.Query().Get("host"), "/") {
		// The database's Unix socket, reached by the image's user: its directories (this test
		// binary's cluster's own) let others pass through, and the socket lets anyone connect.
		sock := u.Query().Get("host")
		args = append(args, "-v", sock+":"+sock)
		for dir := sock; strings.Contains(dir, "agent-deck-pgtest-"); dir = filepath.Dir(dir) {
			if fi, err := os.Stat(dir); err == nil {
				_ = os.Chmod(dir, fi.Mode().Perm()|0o001)
			}
		}
	}
	out, err := run(2*time.Minute, append(args, tag)...)
	if err != nil && strings.Contains(out, "cgroups in hybrid mode not supported") {
		// crun refuses a host whose cgroup v2 hierarchy holds a controller next to v1 ones; runc runs there.
		if _, lerr := exec.LookPath("runc"); lerr == nil {
			t.Logf("crun cannot run here (%s); running with runc", lastLine(out))
			_, _ = run(time.Minute, "rm", "-f", name)
			out, err = run(2*time.Minute, append([]string{"--runtime", "runc"}, append(args, tag)...)...)
		}
	}
	if err != nil {
		t.Skipf("podman cannot start containers here (%v): %s", err, lastLine(out))
	}
	t.Cleanup(func() { _, _ = run(time.Minute, "rm", "-f", name) })
	base := ""
	for deadline := time.Now().Add(time.Minute); base == "" && time.Now().Before(deadline); {
		logs, _ := run(time.Minute, "logs", name)
		if i := strings.Index(logs, `"url":"http://`); i >= 0 {
			u := strings.SplitN(logs[i+7:], `"`, 2)[0]
			if resp, err := http.Get(u + "/readyz"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					base = u
				}
			}
		}
		if base == "" {
			time.Sleep(200 * time.Millisecond)
		}
	}
	if base == "" {
		logs, _ := run(time.Minute, "logs", name)
		t.Fatalf("the container did not become ready:\n%s", logs)
	}
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatalf("GET /healthz: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /healthz: %d", resp.StatusCode)
	}
	pid, err := run(time.Minute, "inspect", "--format", "{{.State.Pid}}", name)
	if err != nil {
		t.Fatalf("podman inspect: %v %s", err, pid)
	}
	status, err := os.ReadFile("/proc/" + strings.TrimSpace(pid) + "/status")
	if err != nil {
		t.Fatalf("reading the container process's status: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if ids, ok := strings.CutPrefix(line, "Uid:"); ok {
			if f := strings.Fields(ids); len(f) == 0 || slices.Contains(f, "0") || f[0] != "65532" {
				t.Errorf("the container's process runs as uids %q, want 65532 (the image's nonroot user), never 0", f)
			}
			return
		}
	}
	t.Fatalf("no Uid line in the container process's status:\n%s", status)
}

// scratchContext is a build context for the Dockerfile's runtime stage on scratch: the
// Dockerfile's last stage as written, from scratch instead of distroless, with a static binary
// built here in place of the build stage's, and the nonroot home and /tmp distroless brings.
func scratchContext(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	// Built as the tests are (no -trimpath), so that the build cache serves it.
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "agent-deck"), "./cmd/agent-deck")
	cmd.Dir, cmd.Env = "..", append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the static binary: %v\n%s", err, out)
	}
	for _, d := range []string{"home/.agent-deck", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "tmp"), 0o1777); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	last := strings.LastIndex(text, "\nFROM ")
	if last < 0 {
		t.Fatal("the Dockerfile has no runtime stage")
	}
	stage := text[last+1:]
	for old, repl := range map[string]string{
		"FROM ${RUNTIME_IMAGE}\n":            "FROM scratch\nCOPY --chown=65532:65532 home /home/nonroot\nCOPY tmp /tmp\n",
		"COPY --from=build /out/agent-deck ": "COPY agent-deck ",
	} {
		if !strings.Contains(stage, old) {
			t.Fatalf("the Dockerfile's runtime stage has no %q:\n%s", strings.TrimSpace(old), stage)
		}
		stage = strings.Replace(stage, old, repl, 1)
	}
	if err := os.WriteFile(filepath.Join(dir, "Containerfile"), []byte(stage), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// rlimit is a limit a container gets, want or the host's hard limit if lower: podman's defaults
// are above the hard limits some hosts give, and without CAP_SYS_RESOURCE the runtime may not
// raise them.
func rlimit(resource int, want uint64) string {
	var lim unix.Rlimit
	if unix.Getrlimit(resource, &lim) == nil && lim.Max < want {
		want = lim.Max
	}
	return strconv.FormatUint(want, 10) + ":" + strconv.FormatUint(want, 10)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return fmt.Sprint(lines[len(lines)-1])
}
