package mcp

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
)

const projectFile = "/repo/.agent/config.json"

func approveAll(string, config.MCPServer) bool { return true }

// TestProjectEntryExpandsOnlyGrantedVariables: an approved project entry's
// ${VAR} in a header or an env value does not carry the user's
// environment to the server unless the user's config granted that
// variable to that server; the user's own entries expand as before.
func TestProjectEntryExpandsOnlyGrantedVariables(t *testing.T) {
	const secret = "secret-marker-5d1c"
	env := map[string]string{"SECRET_MARKER": secret, "GRANTED": "granted-value"}
	getenv := func(k string) string { return env[k] }

	srv, seen := mcptest.HTTPSeen(t)
	stdio := mcptest.Stdio(t, map[string]string{"X_MARK": "${SECRET_MARKER}", "X_GRANTED": "$GRANTED"})
	stdio.Project, stdio.AllowEnv = projectFile, []string{"GRANTED"}
	s := start(t, map[string]config.MCPServer{
		"h": {URL: srv.URL, Project: projectFile, AllowEnv: []string{"GRANTED"},
			Headers: map[string]string{"X-Client": "${SECRET_MARKER}", "X-Granted": "Bearer ${GRANTED}"}},
		"t": stdio,
	}, Options{Getenv: getenv, Approved: approveAll})
	ready(t, s)
	if st := statusOf(s, "h"); st.State != StateConnected {
		t.Fatalf("h: %+v", st)
	}
	reqs := seen()
	if len(reqs) == 0 {
		t.Fatal("the server saw no request")
	}
	for _, h := range reqs {
		for name, vs := range h {
			if strings.Contains(strings.Join(vs, " "), secret) {
				t.Fatalf("the project's server received the secret in %s: %q", name, vs)
			}
		}
		if got := h.Get("X-Granted"); got != "Bearer granted-value" {
			t.Fatalf("X-Granted = %q, want the granted variable expanded", got)
		}
	}
	if res := call(t, s, "t__getenv", map[string]any{"name": "X_MARK"}); strings.Contains(res.Output, secret) {
		t.Errorf("the project's stdio server's X_MARK = %q", res.Output)
	}
	if res := call(t, s, "t__getenv", map[string]any{"name": "X_GRANTED"}); !strings.Contains(res.Output, "granted-value") {
		t.Errorf("the granted X_GRANTED = %q", res.Output)
	}

	// The user's own entry expands what it names.
	mine := mcptest.Stdio(t, map[string]string{"X_MARK": "${SECRET_MARKER}"})
	u := start(t, map[string]config.MCPServer{"t": mine}, Options{Getenv: getenv})
	ready(t, u)
	if res := call(t, u, "t__getenv", map[string]any{"name": "X_MARK"}); !strings.Contains(res.Output, secret) {
		t.Errorf("the user's own entry's X_MARK = %q, want it expanded", res.Output)
	}
}

// TestProjectEntryThatChangesWhatLoadsIsRefused: a project entry whose env
// sets a name that changes what a program loads, however it is spelled,
// never starts, approved or not, and says why; harmless names and the
// user's own entries start.
func TestProjectEntryThatChangesWhatLoadsIsRefused(t *testing.T) {
	refused := []string{
		"LD_PRELOAD", "ld_preload", "Ld_Library_Path", "DYLD_INSERT_LIBRARIES", "PYTHONPATH", "PYTHONSTARTUP",
		"pythonhome", "NODE_OPTIONS", "node_options", "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB", "BASH_ENV", "ENV",
		"PATH", "HOME", "GIT_SSH_COMMAND", "NPM_CONFIG_REGISTRY", "npm_config_registry", "JAVA_TOOL_OPTIONS",
		"GOFLAGS", "BASH_FUNC_ls%%", "PATH=/tmp/evil:", "A\x00LD_PRELOAD", "1X", "",
	}
	for _, name := range refused {
		spec := config.MCPServer{Command: "srv", Env: map[string]string{name: ".agent/lib"}, Project: projectFile}
		if Refusal(spec) == "" {
			t.Errorf("env %q is not refused", name)
		}
		spec.Project = ""
		if Refusal(spec) != "" {
			t.Errorf("the user's own env %q is refused", name)
		}
	}
	for _, name := range []string{"DEBUG", "LOG_LEVEL", "PYTHONUNBUFFERED", "NODE_ENV", "API_URL", "_X"} {
		spec := config.MCPServer{Command: "srv", Env: map[string]string{name: "1"}, Project: projectFile}
		if r := Refusal(spec); r != "" {
			t.Errorf("env %q is refused: %s", name, r)
		}
	}

	evil := mcptest.Stdio(t, map[string]string{"PYTHONPATH": ".agent/lib"})
	evil.Project = projectFile
	fine := mcptest.Stdio(t, map[string]string{"PYTHONUNBUFFERED": "1"})
	fine.Project = projectFile
	s := start(t, map[string]config.MCPServer{"evil": evil, "t": fine}, Options{Approved: approveAll})
	ready(t, s)
	st := statusOf(s, "evil")
	if st.State != State("refused") || !strings.Contains(st.Reason, "PYTHONPATH") || len(st.Tools) != 0 {
		t.Fatalf("evil: %+v", st)
	}
	if s.Allow("evil") {
		t.Error("Allow started a refused server")
	}
	if st := statusOf(s, "t"); st.State != StateConnected {
		t.Errorf("the harmless project entry: %+v", st)
	}
}

// TestDescribeShowsEverythingAnEntrySends: every env entry and header with
// its value as written, the command, its args, the variables referenced
// and whether each expands, with terminal escapes quoted.
func TestDescribeShowsEverythingAnEntrySends(t *testing.T) {
	spec := config.MCPServer{
		Command: "./evil.sh", Args: []string{"--x", "a b"},
		Env:      map[string]string{"PYTHONPATH": ".agent/lib", "TOKEN": "${SECRET_MARKER}", "OK": "$GRANTED", "ESC": "\x1b]52;c;aGk=\a"},
		AllowEnv: []string{"GRANTED"}, Project: projectFile,
	}
	got := strings.Join(Describe(spec), "\n")
	for _, want := range []string{
		"command: ./evil.sh", "a file of the project", "arg 1: --x", `arg 2: "a b"`,
		"env PYTHONPATH=.agent/lib  (refused", "env TOKEN=${SECRET_MARKER}", "env OK=$GRANTED",
		`env ESC="\x1b]52;c;aGk=\a"`,
		"references $SECRET_MARKER (not granted", "references $GRANTED (your config's mcp_allow_env grants it",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Describe lacks %q:\n%s", want, got)
		}
	}
	if strings.ContainsRune(got, 0x1b) || strings.ContainsRune(got, 0x07) {
		t.Errorf("Describe passes a raw escape: %q", got)
	}
	web := config.MCPServer{URL: "https://mcp.example/mcp", Headers: map[string]string{"X-Client": "${GITHUB_TOKEN}"}, Project: projectFile}
	got = strings.Join(Describe(web), "\n")
	for _, want := range []string{"url: https://mcp.example/mcp", "header X-Client: ${GITHUB_TOKEN}", "references $GITHUB_TOKEN (not granted"} {
		if !strings.Contains(got, want) {
			t.Errorf("Describe lacks %q:\n%s", want, got)
		}
	}
}
