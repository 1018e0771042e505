package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fakeAsker answers every request with reply and records what it was asked.
type fakeAsker struct {
	mu      sync.Mutex
	reply   Reply
	err     error
	asked   []Request
	open    atomic.Int32 // questions open at once
	overlap atomic.Bool
	release chan struct{} // if set, Ask waits for it
	started chan struct{} // if set, Ask signals it has begun (once)
	once    sync.Once
}

func (a *fakeAsker) Ask(ctx context.Context, req Request) (Reply, error) {
	if a.open.Add(1) > 1 {
		a.overlap.Store(true)
	}
	defer a.open.Add(-1)
	a.mu.Lock()
	a.asked = append(a.asked, req)
	a.mu.Unlock()
	if a.started != nil {
		a.once.Do(func() { close(a.started) })
	}
	if a.release != nil {
		select {
		case <-a.release:
		case <-ctx.Done():
			return Deny, ctx.Err()
		}
	}
	return a.reply, a.err
}

func (a *fakeAsker) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

func mkCall(name string, input any) Call {
	b, _ := json.Marshal(input)
	return Call{ID: "c", Name: name, Input: b}
}

func TestPermissionsHeadless(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{"in.txt": "x\n"})
	outsideDir := t.TempDir()
	writeFiles(t, outsideDir, map[string]string{"secret.txt": "s\n"})
	rel, _ := filepath.Rel(env.Dir, filepath.Join(outsideDir, "secret.txt"))

	bash := mkCall("bash", map[string]any{"command": "touch ran"})
	readIn := mkCall("read", map[string]any{"path": "in.txt"})
	readDotDot := mkCall("read", map[string]any{"path": rel})
	readAbs := mkCall("read", map[string]any{"path": filepath.Join(outsideDir, "secret.txt")})
	globOut := mkCall("glob", map[string]any{"pattern": "../**/*.txt"})
	editIn := mkCall("edit", map[string]any{"path": "in.txt", "old_string": "x", "new_string": "y"})

	tests := []struct {
		name   string
		modes  map[string]Mode
		yes    bool
		call   Call
		ok     bool
		denial string
	}{
		{"read inside is allowed", nil, false, readIn, true, ""},
		{"bash asks: denied without --yes", nil, false, bash, false, "permission denied: bash needs approval (the bash tool is set to ask)"},
		{"bash with --yes", nil, true, bash, true, ""},
		{"edit asks: denied", nil, false, editIn, false, "--yes"},
		{"bash allowed by config", map[string]Mode{"bash": ModeAllow}, false, bash, true, ""},
		{"deny wins over --yes", map[string]Mode{"bash": ModeDeny}, true, bash, false, `disabled by the configuration (permissions.bash = "deny")`},
		{"deny a read-only tool", map[string]Mode{"read": ModeDeny}, false, readIn, false, "disabled"},
		{"unknown mode value asks", map[string]Mode{"read": "sometimes"}, false, readIn, false, "needs approval"},
		{".. escape asks", nil, false, readDotDot, false, "is outside the session directory"},
		{"absolute escape asks", nil, false, readAbs, false, "outside the session directory"},
		{"glob escape asks", nil, false, globOut, false, "outside"},
		{"escape with --yes", nil, true, readDotDot, true, ""},
		{"escape even when the tool is allowed", map[string]Mode{"read": ModeAllow}, false, readAbs, false, "outside"},
		{"unknown tool passes to the registry", nil, false, mkCall("nope", map[string]any{}), true, ""},
		{"invalid input passes to the registry", nil, false, Call{Name: "bash", Input: []byte(`{`)}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPermissions(tt.modes, nil, tt.yes)
			ok, denial, err := p.Check(context.Background(), env, tt.call)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tt.ok || !strings.Contains(denial, tt.denial) {
				t.Fatalf("Check = %v, %q; want %v, %q", ok, denial, tt.ok, tt.denial)
			}
			if !ok && !strings.Contains(denial, "nothing was run") {
				t.Fatalf("denial does not say nothing ran: %q", denial)
			}
		})
	}
}

func TestPermissionsSymlinkEscape(t *testing.T) {
	env := newEnv(t)
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.txt": "s\n"})
	if err := os.Symlink(outside, filepath.Join(env.Dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(env.Dir, "file-link")); err != nil {
		t.Fatal(err)
	}
	p := NewPermissions(nil, nil, false)
	for _, c := range []Call{
		mkCall("read", map[string]any{"path": "link/secret.txt"}),
		mkCall("read", map[string]any{"path": "file-link"}),
		mkCall("ls", map[string]any{"path": "link"}),
		mkCall("grep", map[string]any{"pattern": "s", "path": "link/"}),
		mkCall("write", map[string]any{"path": "link/new/dir/file.txt", "content": "x"}), // not yet existing under the link
	} {
		ok, denial, _ := p.Check(context.Background(), env, c)
		if ok || !strings.Contains(denial, "outside the session directory") {
			t.Errorf("%s %s: ok=%v %q", c.Name, c.Input, ok, denial)
		}
	}
	// A symlink that stays inside is fine.
	writeFiles(t, env.Dir, map[string]string{"real/f.txt": "x"})
	if err := os.Symlink(filepath.Join(env.Dir, "real"), filepath.Join(env.Dir, "inner")); err != nil {
		t.Fatal(err)
	}
	if ok, denial, _ := p.Check(context.Background(), env, mkCall("read", map[string]any{"path": "inner/f.txt"})); !ok {
		t.Errorf("inner symlink denied: %s", denial)
	}
}

func TestPermissionsSavedOutputsAreReadable(t *testing.T) {
	env := newEnv(t)
	env.Limits.BashMaxOutputChars = 100
	r := NewRegistry()
	res := r.Run(context.Background(), env, mkCall("bash", map[string]any{"command": "seq 1 1000"}))
	if res.FullOutputPath == "" {
		t.Fatal("nothing saved")
	}
	p := NewPermissions(nil, nil, false)
	got, err := r.RunChecked(context.Background(), env, p, mkCall("read", map[string]any{"path": res.FullOutputPath, "offset": 500, "limit": 1}))
	if err != nil || got.IsError || !strings.Contains(got.Output, "   500\t500\n") {
		t.Fatalf("reading the saved output back: %+v %v", got, err)
	}
	// Writing there is another matter.
	a := &fakeAsker{reply: Deny}
	NewPermissions(map[string]Mode{"write": ModeAllow}, a, false).Check(context.Background(), env, mkCall("write", map[string]any{"path": res.FullOutputPath, "content": "x"}))
	if a.count() != 1 || !a.asked[0].Outside {
		t.Fatal("write into the outputs directory not treated as outside")
	}
}

func TestRunCheckedRunsNothingWhenDenied(t *testing.T) {
	env := newEnv(t)
	r := NewRegistry()
	res, err := r.RunChecked(context.Background(), env, NewPermissions(nil, nil, false), mkCall("bash", map[string]any{"command": "touch ran"}))
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.Metadata["permission"] != "denied" || res.Title != "bash: touch ran" {
		t.Fatalf("%+v", res)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "ran")); err == nil {
		t.Fatal("the denied command ran")
	}
	res, err = r.RunChecked(context.Background(), env, NewPermissions(nil, nil, true), mkCall("bash", map[string]any{"command": "touch ran"}))
	if err != nil || res.IsError {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "ran")); err != nil {
		t.Fatal("the approved command did not run")
	}
}

func TestPermissionsAskerReplies(t *testing.T) {
	env := newEnv(t)
	ctx := context.Background()
	edit := mkCall("edit", map[string]any{"path": "a.txt", "old_string": "a", "new_string": "b"})
	write := mkCall("write", map[string]any{"path": "b.txt", "content": "x"})

	t.Run("allow once asks every time", func(t *testing.T) {
		a := &fakeAsker{reply: AllowOnce}
		p := NewPermissions(nil, a, false)
		for range 2 {
			if ok, _, _ := p.Check(ctx, env, edit); !ok {
				t.Fatal("denied")
			}
		}
		if a.count() != 2 {
			t.Fatalf("asked %d times", a.count())
		}
		req := a.asked[0]
		if req.Tool != "edit" || req.Title != "edit a.txt" || req.Outside || !slices.Equal(req.Paths, []string{filepath.Join(env.Dir, "a.txt")}) {
			t.Fatalf("request %+v", req)
		}
	})
	t.Run("allow for the session is remembered per tool", func(t *testing.T) {
		a := &fakeAsker{reply: AllowSession}
		p := NewPermissions(nil, a, false)
		for range 3 {
			if ok, _, _ := p.Check(ctx, env, edit); !ok {
				t.Fatal("denied")
			}
		}
		if a.count() != 1 {
			t.Fatalf("asked %d times", a.count())
		}
		p.Check(ctx, env, write) // another tool: asked again
		if a.count() != 2 {
			t.Fatalf("grant for edit covered write")
		}
		// Outside the directory is a separate grant.
		p.Check(ctx, env, mkCall("edit", map[string]any{"path": filepath.Join(t.TempDir(), "x"), "old_string": "a", "new_string": "b"}))
		if a.count() != 3 || !a.asked[2].Outside {
			t.Fatalf("inside grant covered outside: %d", a.count())
		}
	})
	t.Run("deny", func(t *testing.T) {
		p := NewPermissions(nil, &fakeAsker{reply: Deny}, false)
		ok, denial, err := p.Check(ctx, env, edit)
		if ok || err != nil || !strings.Contains(denial, "the user declined") {
			t.Fatalf("%v %q %v", ok, denial, err)
		}
	})
	t.Run("asker error", func(t *testing.T) {
		p := NewPermissions(nil, &fakeAsker{err: context.Canceled}, false)
		if _, _, err := p.Check(ctx, env, edit); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("--yes does not ask", func(t *testing.T) {
		a := &fakeAsker{reply: Deny}
		if ok, _, _ := NewPermissions(nil, a, true).Check(ctx, env, edit); !ok || a.count() != 0 {
			t.Fatal("asked despite --yes")
		}
	})
}

func TestPermissionsBashPrefixGrants(t *testing.T) {
	env := newEnv(t)
	ctx := context.Background()
	a := &fakeAsker{reply: AllowSession}
	p := NewPermissions(nil, a, false)
	check := func(cmd string) {
		t.Helper()
		if ok, denial, _ := p.Check(ctx, env, mkCall("bash", map[string]any{"command": cmd})); !ok {
			t.Fatalf("%s denied: %s", cmd, denial)
		}
	}
	check("go test ./internal/...")
	if got := a.asked[0].Prefixes; !slices.Equal(got, []string{"go test"}) {
		t.Fatalf("prefixes %v", got)
	}
	check("go test -run X ./cmd")
	if a.count() != 1 {
		t.Fatal("same prefix asked again")
	}
	check("go build ./...")
	if a.count() != 2 {
		t.Fatal("go test grant covered go build")
	}
	check("go test ./... && rm -rf /tmp/x")
	if a.count() != 3 || !slices.Equal(a.asked[2].Prefixes, []string{"go test", "rm"}) {
		t.Fatalf("compound command not asked for rm: %d %v", a.count(), a.asked[len(a.asked)-1].Prefixes)
	}
	// A command substitution is a simple command of its own.
	check("go test $(evil)")
	if a.count() != 4 || !slices.Equal(a.asked[3].Prefixes, []string{"go test", "evil"}) {
		t.Fatalf("command substitution not asked for: %v", a.asked[len(a.asked)-1].Prefixes)
	}
	// What cannot be granted by prefix is granted exactly.
	check("eval $(evil)")
	if a.count() != 5 || len(a.asked[4].Prefixes) != 0 {
		t.Fatal("eval granted by prefix")
	}
	check("eval $(evil)")
	if a.count() != 5 {
		t.Fatal("exact command grant not remembered")
	}
}

func TestCommandPrefixes(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
		ok   bool
	}{
		{"go test ./...", []string{"go test"}, true},
		{"git status", []string{"git status"}, true},
		{"git -C x status", []string{"git"}, true},
		{"ls -la", []string{"ls"}, true},
		{"npm run build 2>&1 | tail -5", []string{"npm run", "tail"}, true},
		{"make >/dev/null && ./run.sh; echo done", []string{"make", "./run.sh", "echo"}, true},
		{"cat a > b", nil, false},
		{"echo `id`", []string{"echo", "id"}, true},
		{"echo $(id)", []string{"echo", "id"}, true},
		{"FOO=1 go test", nil, false},
		{"sudo rm -rf /", nil, false},
		{"bash -c 'x'", nil, false},
		{"xargs rm < list", nil, false},
		{"", nil, false},
	}
	for _, tt := range tests {
		got, ok := commandPrefixes(tt.cmd)
		if ok != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("commandPrefixes(%q) = %v, %v; want %v, %v", tt.cmd, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPermissionsAskOneAtATime(t *testing.T) {
	env := newEnv(t)
	a := &fakeAsker{reply: AllowSession, release: make(chan struct{}), started: make(chan struct{})}
	p := NewPermissions(nil, a, false)
	var wg sync.WaitGroup
	results := make([]bool, 3)
	check := func(i int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _, _ = p.Check(context.Background(), env, mkCall("write", map[string]any{"path": "f", "content": "x"}))
		}()
	}
	check(0)
	<-a.started // the first question is open: the others must wait for it
	check(1)
	check(2)
	close(a.release)
	wg.Wait()
	if a.overlap.Load() {
		t.Fatal("two questions were open at once")
	}
	if a.count() != 1 {
		t.Fatalf("asked %d times; the session grant should answer the waiting calls", a.count())
	}
	for i, ok := range results {
		if !ok {
			t.Fatalf("call %d denied", i)
		}
	}
}

// TestPermissionsGitDirAlwaysAsks: git's configuration and hooks run
// commands (core.fsmonitor, hooks/), so writes and edits under any .git
// directory ask even when the tool is allowed, and no session grant covers
// them; --yes still approves, headless without it refuses.
func TestPermissionsGitDirAlwaysAsks(t *testing.T) {
	env := newEnv(t)
	ctx := context.Background()
	writeFiles(t, env.Dir, map[string]string{".git/config": "[core]\n", "sub/.git/HEAD": "ref\n", "README.md": "r\n"})
	symlink(t, ".git", filepath.Join(env.Dir, "gitlink"))
	symlink(t, ".git/hooks/pre-commit", filepath.Join(env.Dir, "hook.sh"))
	allowed := map[string]Mode{"write": ModeAllow, "edit": ModeAllow}

	gitCalls := []Call{
		mkCall("write", map[string]any{"path": ".git/config", "content": "[core]\n\tfsmonitor = touch pwned\n"}),
		mkCall("edit", map[string]any{"path": ".git/config", "old_string": "[core]", "new_string": "[core]\n\tfsmonitor = x"}),
		mkCall("write", map[string]any{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"}),
		mkCall("write", map[string]any{"path": "sub/.git/config", "content": "x"}),
		mkCall("write", map[string]any{"path": ".GIT/config", "content": "x"}),
		mkCall("write", map[string]any{"path": "sub/../.Git/hooks/x", "content": "x"}),
		mkCall("write", map[string]any{"path": "gitlink/config", "content": "x"}),
		mkCall("write", map[string]any{"path": "hook.sh", "content": "x"}),
		mkCall("write", map[string]any{"path": filepath.Join(env.Dir, ".git", "config"), "content": "x"}),
	}
	for _, c := range gitCalls {
		t.Run(string(c.Input), func(t *testing.T) {
			ok, denial, err := NewPermissions(allowed, nil, false).Check(ctx, env, c)
			if err != nil || ok || !strings.Contains(denial, ".git") || !strings.Contains(denial, "nothing was run") {
				t.Errorf("headless without --yes: ok=%v %q %v", ok, denial, err)
			}
			if ok, _, _ := NewPermissions(allowed, nil, true).Check(ctx, env, c); !ok {
				t.Error("--yes did not approve")
			}
			a := &fakeAsker{reply: AllowSession}
			p := NewPermissions(allowed, a, false)
			for range 2 {
				if ok, _, _ := p.Check(ctx, env, c); !ok {
					t.Fatal("the user allowed it, yet denied")
				}
			}
			if a.count() != 2 {
				t.Errorf("asked %d times: an allow for the session covered .git", a.count())
			}
			if a.count() == 0 || !a.asked[0].GitDir {
				t.Errorf("request does not say .git: %+v", a.asked[0])
			}
		})
	}

	// A session grant of write (asked, inside) covers ordinary files but
	// not .git.
	a := &fakeAsker{reply: AllowSession}
	p := NewPermissions(nil, a, false)
	p.Check(ctx, env, mkCall("write", map[string]any{"path": "README.md", "content": "x"}))
	p.Check(ctx, env, mkCall("write", map[string]any{"path": "other.md", "content": "x"}))
	if a.count() != 1 {
		t.Fatalf("write grant not remembered: asked %d", a.count())
	}
	p.Check(ctx, env, gitCalls[0])
	if a.count() != 2 {
		t.Fatal("the session grant for write covered .git/config")
	}
	// Neither are reading .git, nor names that merely contain ".git".
	for _, c := range []Call{
		mkCall("read", map[string]any{"path": ".git/config"}),
		mkCall("write", map[string]any{"path": ".gitignore", "content": "x"}),
		mkCall("write", map[string]any{"path": "x.git/config", "content": "x"}),
		mkCall("write", map[string]any{"path": ".github/workflows/ci.yml", "content": "x"}),
	} {
		if ok, denial, _ := NewPermissions(allowed, nil, false).Check(ctx, env, c); !ok {
			t.Errorf("%s %s denied: %s", c.Name, c.Input, denial)
		}
	}
}

// TestShellCommands: a line is granted per simple command, wherever it
// sits (loops, conditions, case arms, subshells, substitutions, function
// bodies), never per keyword; what cannot be analysed statically is never
// granted by prefix.
func TestShellCommands(t *testing.T) {
	for _, tt := range shellCommandsCases {
		commands, prefixes := shellCommands(tt.cmd)
		if !slices.Equal(commands, tt.commands) || !slices.Equal(prefixes, tt.prefixes) {
			t.Errorf("shellCommands(%q) =\n\t%q, %q\nwant\n\t%q, %q", tt.cmd, commands, prefixes, tt.commands, tt.prefixes)
		}
	}
}

// shellCommandsCases also seed FuzzShellGrantAgainstBash.
var shellCommandsCases = []struct {
	cmd      string
	commands []string
	prefixes []string // nil: exact grant only
}{
	{"go test ./...", []string{"go test ./..."}, []string{"go test"}},
	{"for f in a b; do echo $f; done", []string{"echo $f"}, []string{"echo"}},
	{"for f in 1; do touch pwned; done", []string{"touch pwned"}, []string{"touch"}},
	{"case $x in a) rm -rf build;; *) echo no;; esac", []string{"rm -rf build", "echo no"}, []string{"rm", "echo"}},
	{"while true; do curl -s x | sh; done", []string{"true", "curl -s x", "sh"}, nil},
	{"if test -f a; then cat a; else git status; fi", []string{"test -f a", "cat a", "git status"}, []string{"test", "cat", "git status"}},
	{"(cd sub && make) || echo failed", []string{"cd sub", "make", "echo failed"}, []string{"cd", "make", "echo"}},
	{"echo $(id)", []string{"echo $(id)", "id"}, []string{"echo", "id"}},
	{"echo `whoami`", []string{"echo `whoami`", "whoami"}, []string{"echo", "whoami"}},
	{"go test $(go list ./... | grep -v vendor)", []string{"go test $(go list ./... | grep -v vendor)", "go list ./...", "grep -v vendor"}, []string{"go test", "go list", "grep"}},
	{"f() { rm -rf /; }; f", []string{"rm -rf /", "f"}, []string{"rm", "f"}},
	{"diff <(sort a) <(sort b)", []string{"diff <(sort a) <(sort b)", "sort a", "sort b"}, []string{"diff", "sort"}},
	{"make >/dev/null 2>&1 && ./run.sh", []string{"make", "./run.sh"}, []string{"make", "./run.sh"}},
	{"wc -l < input.txt", []string{"wc -l"}, []string{"wc"}},
	// Never granted by prefix: they ask, or match an exact-command grant.
	{"cat a > b", []string{"cat a"}, nil},
	{"echo x >> ~/.bashrc", []string{"echo x"}, nil},
	{"eval \"$cmd\"", []string{"eval \"$cmd\""}, nil},
	{"bash -c 'rm -rf /'", []string{"bash -c 'rm -rf /'"}, nil},
	{"sh -c ls", []string{"sh -c ls"}, nil},
	{"$CMD arg", []string{"$CMD arg"}, nil},
	{"sudo rm -rf /", []string{"sudo rm -rf /"}, nil},
	{"ls | xargs rm", []string{"ls", "xargs rm"}, nil},
	{"env X=1 go test", []string{"env X=1 go test"}, nil},
	{"FOO=1 go test", []string{"FOO=1 go test"}, nil},
	{"PATH=/tmp/evil:$PATH; ls", []string{"PATH=/tmp/evil:$PATH", "ls"}, nil},
	{"exec rm -rf /", []string{"exec rm -rf /"}, nil},
	{"source ./env.sh", []string{"source ./env.sh"}, nil},
	{". ./env.sh", []string{". ./env.sh"}, nil},
	{"export PATH=/tmp", nil, nil},
	{"for PATH in /tmp/evil; do ls; done", []string{"ls"}, nil},
	{"echo ${x:=$(id)}", []string{"echo ${x:=$(id)}", "id"}, nil},
	{"git $(echo push) --force", []string{"git $(echo push) --force", "echo push"}, nil},
	{"echo 'unterminated", nil, nil}, // a parse error
	{"", nil, nil},
}

// TestPermissionsShellKeywordsGrantNothing: the two probes of issue 11.5.
func TestPermissionsShellKeywordsGrantNothing(t *testing.T) {
	env := newEnv(t)
	ctx := context.Background()
	a := &fakeAsker{reply: AllowSession}
	p := NewPermissions(nil, a, false)
	check := func(cmd string) Request {
		t.Helper()
		before := a.count()
		if ok, denial, _ := p.Check(ctx, env, mkCall("bash", map[string]any{"command": cmd})); !ok {
			t.Fatalf("%s denied: %s", cmd, denial)
		}
		if a.count() == before {
			return Request{}
		}
		return a.asked[len(a.asked)-1]
	}
	req := check("for f in a b; do echo $f; done")
	if !slices.Equal(req.Prefixes, []string{"echo"}) || !slices.Equal(req.Commands, []string{"echo $f"}) {
		t.Fatalf("first request %+v", req)
	}
	req = check("for f in 1; do touch /tmp/pwned; done")
	if req.Tool == "" {
		t.Fatal("a grant on a for loop covered another for loop running touch")
	}
	if !slices.Equal(req.Commands, []string{"touch /tmp/pwned"}) {
		t.Errorf("dialog commands %q", req.Commands)
	}
	req = check("case x in x) rm -rf ~/work;; esac")
	if req.Tool == "" || !slices.Contains(req.Commands, "rm -rf ~/work") {
		t.Fatalf("case hid its command: %+v", req)
	}
	// Every simple command covered: no question.
	if req := check("for g in c d; do echo $g; done && touch x"); req.Tool != "" {
		t.Fatalf("asked although echo and touch were granted: %+v", req)
	}
	// An unanalysable command is never covered by prefix grants.
	if req := check("echo hi; eval touch y"); req.Tool == "" {
		t.Fatal("eval ran under the echo grant")
	}
}

// TestPermissionsRequestNamesWhoAsks: a call from a subagent's session
// (its Env says who runs it) reaches the dialog saying so; the session's
// own calls say nothing.
func TestPermissionsRequestNamesWhoAsks(t *testing.T) {
	ctx := context.Background()
	write := mkCall("write", map[string]any{"path": "b.txt", "content": "x"})
	a := &fakeAsker{reply: AllowOnce}
	p := NewPermissions(nil, a, false)
	env := newEnv(t)
	if ok, _, _ := p.Check(ctx, env, write); !ok {
		t.Fatal("denied")
	}
	env.AskFrom = `the subagent "fix the tests"`
	if ok, _, _ := p.Check(ctx, env, write); !ok {
		t.Fatal("denied")
	}
	if a.count() != 2 || a.asked[0].From != "" || a.asked[1].From != `the subagent "fix the tests"` {
		t.Fatalf("requests: %+v", a.asked)
	}
}
