package main

// Issue 31 items 2 and 3 (an OS sandbox for what the agent runs), driven
// through the real binary against the fake server. Each test skips, saying
// why, where bubblewrap cannot run.

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/sandbox"
)

func needSandboxE2E(t *testing.T) {
	t.Helper()
	if err := sandbox.Probe(); err != nil {
		t.Skipf("skipping: no sandbox on this machine (%v)", err)
	}
}

// localServer listens on 127.0.0.1 and answers each connection "hello".
func localServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			fmt.Fprint(c, "HTTP/1.0 200 OK\r\nContent-Length: 6\r\n\r\nhello\n")
			c.Close()
		}
	}()
	return ln.Addr().String()
}

// resultsByID are the tool_result events of a JSON run, by call id.
func resultsByID(t *testing.T, stdout string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, ev := range jsonEvents(t, stdout) {
		if ev["type"] == "tool_result" {
			id, _ := ev["id"].(string)
			out[id], _ = ev["output"].(string)
		}
	}
	return out
}

// connectCmd is a tiny client: bash's /dev/tcp, then curl when there is one.
func connectCmd(addr string) string {
	host, port, _ := net.SplitHostPort(addr)
	return fmt.Sprintf(`exec 3<>/dev/tcp/%s/%s && cat <&3`, host, port)
}

// TestE2ESandboxDeniesAndNamesTheResource: with --sandbox workspace-write
// and no --yes, the model's commands run without a prompt; writing
// ../outside or .git/hooks/x, reading /proc/$PPID/environ and connecting
// to a local server fail, each naming what was denied; writing inside the
// workspace succeeds.
func TestE2ESandboxDeniesAndNamesTheResource(t *testing.T) {
	needSandboxE2E(t)
	addr := localServer(t)
	e := newEnv(t,
		pt.ToolCall("out", "bash", `{"command":"touch ../outside"}`),
		pt.ToolCall("hook", "bash", `{"command":"echo x > .git/hooks/x"}`),
		pt.ToolCall("env", "bash", `{"command":"tr '\\0' '\\n' < /proc/$PPID/environ"}`),
		pt.ToolCall("net", "bash", fmt.Sprintf(`{"command":%q}`, connectCmd(addr))),
		pt.ToolCall("curl", "bash", fmt.Sprintf(`{"command":"curl -sS --max-time 5 http://%s/"}`, addr)),
		pt.ToolCall("in", "bash", `{"command":"echo ok > inside && cat inside"}`),
		pt.Text("done"))
	os.MkdirAll(filepath.Join(e.work, ".git", "hooks"), 0o755)

	res := e.run("", "run", "--sandbox", "workspace-write", "--format", "json", "try the sandbox")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	got := resultsByID(t, res.stdout)
	for id, want := range map[string]string{
		"out":  "write to ../outside",
		"hook": ".git stays read-only",
		"env":  "/proc/0/environ",
		"net":  "network connection to 127.0.0.1:",
		"curl": "network connection to 127.0.0.1:",
	} {
		if !strings.Contains(got[id], "[sandbox (workspace-write): the command was denied") || !strings.Contains(got[id], want) {
			t.Errorf("%s: want the denial naming %q, got %q", id, want, got[id])
		}
	}
	if strings.Contains(got["net"]+got["curl"], "hello") {
		t.Error("the sandboxed command reached the local server")
	}
	if !strings.Contains(got["in"], "ok\n[exit code 0]") {
		t.Errorf("workspace write: %q", got["in"])
	}
	if strings.Contains(res.stdout, "needs approval") {
		t.Errorf("a sandboxed command asked for permission:\n%s", res.stdout)
	}
	if strings.Contains(res.stdout, testKey) {
		t.Error("the key reached a tool result")
	}
	for _, p := range []string{filepath.Join(filepath.Dir(e.work), "outside"), filepath.Join(e.work, ".git", "hooks", "x")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	if readFile(t, filepath.Join(e.work, "inside")) != "ok\n" {
		t.Error("the workspace write did not land")
	}
}

// TestE2ESandboxNetworkAllowConnects: the config's sandbox with network
// allow lets the same client reach the local server (and still confines
// writes).
func TestE2ESandboxNetworkAllowConnects(t *testing.T) {
	needSandboxE2E(t)
	addr := localServer(t)
	e := newEnv(t,
		pt.ToolCall("net", "bash", fmt.Sprintf(`{"command":%q}`, connectCmd(addr))),
		pt.ToolCall("out", "bash", `{"command":"touch ../outside"}`),
		pt.Text("done"))
	writeConfig(t, e, `{"sandbox": {"mode": "workspace-write", "network": "allow"}}`)
	res := e.run("", "run", "--format", "json", "connect")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	got := resultsByID(t, res.stdout)
	if !strings.Contains(got["net"], "hello") || strings.Contains(got["net"], "[sandbox") {
		t.Errorf("network allow: %q", got["net"])
	}
	if !strings.Contains(got["out"], "write to ../outside") {
		t.Errorf("network allow loosened the writes: %q", got["out"])
	}
}

// TestE2ESandboxFlagBadInput: a mode that is not one exits 2 naming the
// modes; where no sandbox runs, an explicit --sandbox exits 2 with the
// cause instead of running unconfined.
func TestE2ESandboxFlagBadInput(t *testing.T) {
	e := newEnv(t, pt.ToolCall("c", "bash", `{"command":"touch ran"}`), pt.Text("done"))
	res := e.run("", "run", "--sandbox", "full", "x")
	if res.code != 2 || !strings.Contains(res.stderr, "want off, read-only or workspace-write") {
		t.Errorf("--sandbox full: exit %d %s", res.code, res.stderr)
	}
	if err := sandbox.Probe(); err != nil {
		res := e.run("", "run", "--sandbox", "workspace-write", "x")
		if res.code != 2 || !strings.Contains(res.stderr, "no sandbox on this machine") {
			t.Errorf("--sandbox without a sandbox: exit %d %s", res.code, res.stderr)
		}
	}
	if len(e.srv.Requests()) != 0 {
		t.Error("a refused run made a request")
	}
	if _, err := os.Stat(filepath.Join(e.work, "ran")); err == nil {
		t.Error("a refused run ran a command")
	}
}

// TestE2ESandboxFixAFailingTestNoPrompts: the scripted "fix a failing
// test" session (read, edit, run the tests ×3, git diff) asks nothing with
// the sandbox on, where without it every command needs approval.
func TestE2ESandboxFixAFailingTestNoPrompts(t *testing.T) {
	needSandboxE2E(t)
	needGitE2E(t)
	steps := func() []pt.Step {
		return []pt.Step{
			pt.ToolCall("r", "read", `{"path":"calc.sh"}`),
			pt.ToolCall("e", "edit", `{"path":"calc.sh","old_string":"echo 5","new_string":"echo 4"}`),
			pt.ToolCall("t1", "bash", `{"command":"sh test.sh"}`),
			pt.ToolCall("t2", "bash", `{"command":"sh test.sh && echo again"}`),
			pt.ToolCall("t3", "bash", `{"command":"sh -x test.sh"}`),
			pt.ToolCall("d", "bash", `{"command":"git --no-pager diff"}`),
			pt.Text("fixed"),
		}
	}
	setup := func(e *env) {
		os.WriteFile(filepath.Join(e.work, "calc.sh"), []byte("echo 5\n"), 0o644)
		os.WriteFile(filepath.Join(e.work, "test.sh"), []byte("[ \"$(sh calc.sh)\" = 4 ] && echo PASS || { echo FAIL; exit 1; }\n"), 0o644)
		for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "x"}} {
			if out, err := gitIn(e.work, args...); err != nil {
				t.Fatalf("git %v: %v %s", args, err, out)
			}
		}
		writeConfig(t, e, `{"permissions": {"edit": "allow"}}`)
	}
	prompts := func(stdout string) int { return strings.Count(stdout, "needs approval") }

	off := newEnv(t, steps()...)
	setup(off)
	resOff := off.run("", "run", "--format", "json", "fix the test")
	on := newEnv(t, steps()...)
	setup(on)
	resOn := on.run("", "run", "--sandbox", "workspace-write", "--format", "json", "fix the test")
	if resOn.code != 0 {
		t.Fatalf("exit %d: %s", resOn.code, resOn.stderr)
	}
	got := resultsByID(t, resOn.stdout)
	if n := prompts(resOn.stdout); n != 0 {
		t.Errorf("sandbox on: %d permission prompts, want 0:\n%s", n, resOn.stdout)
	}
	if n := prompts(resOff.stdout); n != 4 {
		t.Errorf("sandbox off: %d permission prompts, want 4 (one per command)", n)
	}
	for _, id := range []string{"t1", "t2", "t3"} {
		if !strings.Contains(got[id], "PASS") || !strings.Contains(got[id], "[exit code 0]") {
			t.Errorf("%s: %q", id, got[id])
		}
	}
	if !strings.Contains(got["d"], "+echo 4") {
		t.Errorf("git diff: %q", got["d"])
	}
}

// TestE2ESandboxWritesAreCheckpointed: what a sandboxed command writes is
// in the turn's checkpoint exactly as an unsandboxed write: agent diff
// shows it and agent rewind restores it.
func TestE2ESandboxWritesAreCheckpointed(t *testing.T) {
	needSandboxE2E(t)
	needGitE2E(t)
	e := newEnv(t,
		pt.ToolCalls(pt.Call{ID: "b", Name: "bash", Args: `{"command":"echo two > a.txt; echo new > b.txt"}`}),
		pt.Text("done"))
	a, b := filepath.Join(e.work, "a.txt"), filepath.Join(e.work, "b.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	if res := e.run("", "run", "--sandbox", "workspace-write", "change the files"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	if readFile(t, a) != "two\n" {
		t.Fatalf("the sandboxed turn did not write: a.txt = %q", readFile(t, a))
	}
	diff := e.run("", "diff", "-c")
	if diff.code != 0 || !strings.Contains(diff.stdout, "-one") || !strings.Contains(diff.stdout, "+two") || !strings.Contains(diff.stdout, "b/b.txt") {
		t.Errorf("diff -c: exit %d\n%s\n%s", diff.code, diff.stdout, diff.stderr)
	}
	rw := e.run("", "rewind", "-c")
	if rw.code != 0 || !strings.Contains(rw.stdout, "restored 2 file(s)") {
		t.Errorf("rewind: exit %d\n%s\n%s", rw.code, rw.stdout, rw.stderr)
	}
	if readFile(t, a) != "one\n" {
		t.Errorf("after rewind a.txt = %q", readFile(t, a))
	}
	if _, err := os.Stat(b); err == nil && !strings.HasPrefix(readFile(t, b), "<") {
		t.Errorf("after rewind b.txt = %q", readFile(t, b))
	}
}

func writeConfig(t *testing.T, e *env, body string) {
	t.Helper()
	path := filepath.Join(e.home, ".config", "agent", "config.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func gitIn(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	return cmd.CombinedOutput()
}
