package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// initRepo makes dir a git repository whose .git/config ends with extra.
func initRepo(t *testing.T, dir, extra string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	cmd := exec.Command("git", "init", "-q", dir)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(extra); err != nil {
		t.Fatal(err)
	}
}

// assertAsksAsCode checks that c asks even with write and edit allowed,
// is never granted for the session, and that the request and the
// headless denial say why (wantReason).
func assertAsksAsCode(t *testing.T, env *Env, c Call, wantReason string) {
	t.Helper()
	ctx := context.Background()
	allowed := map[string]Mode{"write": ModeAllow, "edit": ModeAllow}
	ok, denial, err := NewPermissions(allowed, nil, false).Check(ctx, env, c)
	if err != nil || ok {
		t.Fatalf("%s %s: headless without --yes ran it (ok=%v, %v)", c.Name, c.Input, ok, err)
	}
	if !strings.Contains(denial, wantReason) || !strings.Contains(denial, "nothing was run") || !strings.Contains(denial, "--yes") {
		t.Errorf("%s %s: the denial does not say why (%q): %s", c.Name, c.Input, wantReason, denial)
	}
	if strings.Contains(denial, `"allow"`) {
		t.Errorf("%s %s: the denial suggests allowing the tool, which would not help: %s", c.Name, c.Input, denial)
	}
	if ok, _, _ := NewPermissions(allowed, nil, true).Check(ctx, env, c); !ok {
		t.Errorf("%s %s: --yes did not approve", c.Name, c.Input)
	}
	a := &fakeAsker{reply: AllowSession}
	p := NewPermissions(allowed, a, false)
	for range 2 {
		if ok, _, _ := p.Check(ctx, env, c); !ok {
			t.Fatalf("%s %s: the user allowed it, yet denied", c.Name, c.Input)
		}
	}
	if a.count() != 2 {
		t.Fatalf("%s %s: asked %d times with write allowed and an allow for the session given, want 2", c.Name, c.Input, a.count())
	}
	if req := a.asked[0]; !req.RunsCode || !strings.Contains(req.Reason, wantReason) {
		t.Errorf("%s %s: request RunsCode=%v, reason %q, want it to say %q", c.Name, c.Input, req.RunsCode, req.Reason, wantReason)
	}
}

func writeCall(path string) Call {
	return mkCall("write", map[string]any{"path": path, "content": "touch pwned\n"})
}

func editCall(path string) Call {
	return mkCall("edit", map[string]any{"path": path, "old_string": "old", "new_string": "touch pwned"})
}

// TestWritesThatBecomeCodeAsk: a write or edit to a file that runs on the
// user's next action (git hooks, direnv, editor tasks, dev containers,
// hook managers, the agent's own project config and hooks) asks even when
// the tool is allowed, and says why; so does one reached through a
// symlink, "..", or another letter case.
func TestWritesThatBecomeCodeAsk(t *testing.T) {
	env := newEnv(t)
	listed := map[string]string{
		".githooks/pre-commit":            "git runs",
		".git/hooks/pre-push":             ".git directory",
		".envrc":                          "direnv",
		"sub/.envrc":                      "direnv",
		".vscode/tasks.json":              "VS Code",
		".vscode/settings.json":           "VS Code",
		"app.code-workspace":              "VS Code",
		".idea/workspace.xml":             "JetBrains",
		".devcontainer/devcontainer.json": "dev container",
		".devcontainer.json":              "dev container",
		".husky/pre-commit":               "husky",
		".pre-commit-config.yaml":         "pre-commit",
		"lefthook.yml":                    "lefthook",
		".agent/config.json":              "agent's project configuration",
		".agent/hooks/check.sh":           "project hooks",
		".claude/settings.json":           "Claude Code",
	}
	files := map[string]string{}
	for p := range listed {
		files[p] = "old\n"
	}
	writeFiles(t, env.Dir, files)
	for p, reason := range listed {
		assertAsksAsCode(t, env, writeCall(p), reason)
		env.Files = nil // edit needs no earlier read here
		assertAsksAsCode(t, env, editCall(p), reason)
		env.Files = NewFileTracker()
	}

	// Reached another way: the same files.
	symlink(t, ".vscode", filepath.Join(env.Dir, "editor"))
	symlink(t, ".envrc", filepath.Join(env.Dir, "setup.sh"))
	symlink(t, "../.agent/hooks/new.sh", filepath.Join(env.Dir, "lib", "dangling.sh"))
	for p, reason := range map[string]string{
		"editor/tasks.json":              "VS Code",
		"setup.sh":                       "direnv",
		"lib/dangling.sh":                "project hooks",
		"lib/../.envrc":                  "direnv",
		"sub/../.vscode/../.envrc":       "direnv",
		filepath.Join(env.Dir, ".envrc"): "direnv",
		".ENVRC":                         "direnv",
		".VSCode/Tasks.JSON":             "VS Code",
		".Agent/Hooks/x.sh":              "project hooks",
	} {
		assertAsksAsCode(t, env, writeCall(p), reason)
	}
}

// TestWriteToConfiguredHooksPathAsks: core.hooksPath in the repository's
// .git/config moves git's hooks; a file there asks, its neighbours do not.
func TestWriteToConfiguredHooksPathAsks(t *testing.T) {
	env := newEnv(t)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("HOME", t.TempDir())
	initRepo(t, env.Dir, "\thooksPath = tools/hooks\n")
	writeFiles(t, env.Dir, map[string]string{"tools/hooks/pre-commit": "old\n", "tools/lint.sh": "old\n"})
	sub := filepath.Join(env.Dir, "sub")
	os.MkdirAll(sub, 0o755)

	assertAsksAsCode(t, env, writeCall("tools/hooks/pre-commit"), "core.hooksPath")
	assertAsksAsCode(t, env, writeCall("tools/hooks/post-checkout"), "core.hooksPath")
	assertAsksAsCode(t, env, writeCall("TOOLS/Hooks/pre-push"), "core.hooksPath")
	subEnv := &Env{Dir: sub}
	assertAsksAsCode(t, subEnv, writeCall("../tools/hooks/pre-commit"), "core.hooksPath")

	ok, denial, _ := NewPermissions(map[string]Mode{"write": ModeAllow}, nil, false).Check(context.Background(), env, writeCall("tools/lint.sh"))
	if !ok {
		t.Errorf("tools/lint.sh, beside the hooks, asked: %s", denial)
	}
}

// TestWriteToAFileAHookRunsAsks: a file a configured hook runs
// (Env.CodeFiles) is code the agent itself runs.
func TestWriteToAFileAHookRunsAsks(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{"scripts/check.sh": "old\n"})
	env.CodeFiles = []string{filepath.Join(env.Dir, "scripts", "check.sh")}
	assertAsksAsCode(t, env, writeCall("scripts/check.sh"), "a configured hook runs")
	assertAsksAsCode(t, env, writeCall("./scripts/../scripts/check.sh"), "a configured hook runs")
}

// TestOrdinaryWritesDoNotAsk: editing build files and sources is the job;
// with write and edit allowed they run without a question.
func TestOrdinaryWritesDoNotAsk(t *testing.T) {
	env := newEnv(t)
	ordinary := []string{"Makefile", "main.go", "package.json", ".github/workflows/ci.yml", ".gitignore", ".gitattributes",
		".env", ".vscode/launch.json", "docs/.envrc.md", "githooks/x", "x.husky", ".agent/commands/review.md", "scripts/check.sh"}
	files := map[string]string{}
	for _, p := range ordinary {
		files[p] = "old\n"
	}
	writeFiles(t, env.Dir, files)
	env.Files = nil
	allowed := map[string]Mode{"write": ModeAllow, "edit": ModeAllow}
	for _, p := range ordinary {
		for _, c := range []Call{writeCall(p), editCall(p)} {
			if ok, denial, _ := NewPermissions(allowed, nil, false).Check(context.Background(), env, c); !ok {
				t.Errorf("%s %s denied: %s", c.Name, p, denial)
			}
		}
	}
}

// TestHooksPathAtTheTopAsksForHookNamesOnly: core.hooksPath = . makes
// git run pre-commit from the top of the work tree; the files beside it
// are ordinary.
func TestHooksPathAtTheTopAsksForHookNamesOnly(t *testing.T) {
	env := newEnv(t)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("HOME", t.TempDir())
	initRepo(t, env.Dir, "\thooksPath = .\n")
	assertAsksAsCode(t, env, writeCall("pre-commit"), "core.hooksPath")
	assertAsksAsCode(t, env, writeCall("Post-Checkout"), "core.hooksPath")
	for _, p := range []string{"main.go", "Makefile", "sub/pre-commit"} {
		if ok, denial, _ := NewPermissions(map[string]Mode{"write": ModeAllow}, nil, false).Check(context.Background(), env, writeCall(p)); !ok {
			t.Errorf("%s asked: %s", p, denial)
		}
	}
}

// BenchmarkCheckAllowedWrite is the cost of deciding an allowed write in
// a repository: the table, and core.hooksPath read from git's files.
func BenchmarkCheckAllowedWrite(b *testing.B) {
	env := newEnv(b)
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	b.Setenv("HOME", b.TempDir())
	if out, err := exec.Command("git", "init", "-q", env.Dir).CombinedOutput(); err != nil {
		b.Skipf("git init: %v %s", err, out)
	}
	p := NewPermissions(map[string]Mode{"write": ModeAllow}, nil, false)
	c := writeCall("internal/x/main.go")
	for b.Loop() {
		if ok, _, _ := p.Check(context.Background(), env, c); !ok {
			b.Fatal("denied")
		}
	}
}

// TestHooksPathChangeIsSeenAtTheNextWrite: the hooks directory is cached
// between writes (gitcmd.CachedHooksPath), and a `git config
// core.hooksPath` between two writes moves it at once.
func TestHooksPathChangeIsSeenAtTheNextWrite(t *testing.T) {
	env := newEnv(t)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("HOME", t.TempDir())
	initRepo(t, env.Dir, "\thooksPath = one\n")
	assertAsksAsCode(t, env, writeCall("one/pre-commit"), "core.hooksPath")
	allowed := NewPermissions(map[string]Mode{"write": ModeAllow}, nil, false)
	if ok, denial, _ := allowed.Check(context.Background(), env, writeCall("two/pre-commit")); !ok {
		t.Fatalf("two/pre-commit asked before the config named it: %s", denial)
	}
	cmd := exec.Command("git", "config", "core.hooksPath", "two")
	cmd.Dir, cmd.Env = env.Dir, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git config: %v\n%s", err, out)
	}
	assertAsksAsCode(t, env, writeCall("two/pre-commit"), "core.hooksPath")
	if ok, denial, _ := allowed.Check(context.Background(), env, writeCall("one/pre-commit")); !ok {
		t.Fatalf("one/pre-commit still asks after the config moved the hooks: %s", denial)
	}
}
