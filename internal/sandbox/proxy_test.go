package sandbox

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets this test binary serve as the in-sandbox relay, as the
// agent's binary does (RelayEntry in cmd/agent's main).
func TestMain(m *testing.M) {
	RelayEntry()
	os.Exit(m.Run())
}

// helloServer listens on 127.0.0.1 and answers each request "hello".
func helloServer(t *testing.T) string {
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
			go func() {
				buf := make([]byte, 4096)
				c.Read(buf) // the request; one read is enough for curl's
				fmt.Fprint(c, "HTTP/1.0 200 OK\r\nContent-Length: 6\r\n\r\nhello\n")
				c.Close()
			}()
		}
	}()
	return ln.Addr().String()
}

// TestWrapNetworkAllowList: with a list of hosts, a command reaches a
// listed host through the agent's proxy (plain HTTP and a CONNECT
// tunnel), and a host not listed is refused with the host named, both in
// the command's output and by Explain.
func TestWrapNetworkAllowList(t *testing.T) {
	needSandbox(t)
	if _, err := os.Stat("/usr/bin/curl"); err != nil {
		t.Skip("skipping: no curl")
	}
	ok, other := helloServer(t), helloServer(t)
	ws := t.TempDir()
	p := Policy{Mode: ModeWorkspaceWrite, Workspace: ws, Hosts: []string{ok}}
	for _, c := range []struct{ name, script string }{
		{"http", "curl -sS --max-time 5 http://" + ok + "/"},
		{"connect", "curl -sS --max-time 5 --proxytunnel http://" + ok + "/"},
	} {
		out, err := run(t, p, ws, c.script)
		if err != nil || !strings.Contains(out, "hello") {
			t.Errorf("%s to the allowed %s: err %v, output %q; want hello", c.name, ok, err, out)
		}
	}
	for _, c := range []struct{ name, script string }{
		{"http", "curl -sSf --max-time 5 http://" + other + "/"},
		{"connect", "curl -sS --max-time 5 --proxytunnel http://" + other + "/"},
	} {
		out, err := run(t, p, ws, c.script)
		if err == nil || strings.Contains(out, "hello") {
			t.Errorf("%s to the unlisted %s: err %v, output %q; want refused", c.name, other, err, out)
		}
		if !strings.Contains(out, other) {
			t.Errorf("%s: output %q does not name the refused host %s", c.name, out, other)
		}
		if note := Explain(out, p); !strings.Contains(note, other) || !strings.Contains(note, `"network"`) {
			t.Errorf("%s: Explain = %q; want the host and how to list it", c.name, note)
		}
	}
	// No connection outside the proxy: the network namespace stays closed.
	if out, err := run(t, p, ws, "exec 3<>/dev/tcp/"+strings.Replace(ok, ":", "/", 1)); err == nil {
		t.Errorf("a direct connection to %s succeeded: %q", ok, out)
	}
	// The proxy's socket and temp dir are gone after cleanup.
	if m, _ := filepath.Glob(filepath.Join(os.TempDir(), "agent-sandbox-*", relaySocket)); len(m) > 0 {
		t.Errorf("proxy sockets left behind: %v", m)
	}
}

func TestHostAllowed(t *testing.T) {
	hosts := []string{"example.com", "api.test:8443", "*.pkg.dev", "127.0.0.1:9000"}
	for in, want := range map[string]bool{
		"example.com:443":     true,
		"example.com:80":      true,
		"EXAMPLE.com.:443":    true,
		"www.example.com:443": false,
		"api.test:8443":       true,
		"api.test:443":        false,
		"a.pkg.dev:443":       true,
		"pkg.dev:443":         true,
		"evilpkg.dev:443":     false,
		"127.0.0.1:9000":      true,
		"127.0.0.1:9001":      false,
	} {
		if got := hostAllowed(hosts, in); got != want {
			t.Errorf("hostAllowed(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestAnnouncementOnce: the announcement comes once per data directory.
func TestAnnouncementOnce(t *testing.T) {
	needSandbox(t)
	dir := filepath.Join(t.TempDir(), "data")
	first := Announcement(dir)
	if !strings.Contains(first, "/sandbox workspace-write") || !strings.Contains(first, `"sandbox": "workspace-write"`) {
		t.Fatalf("first announcement %q lacks how to turn it on", first)
	}
	if again := Announcement(dir); again != "" {
		t.Fatalf("announced again: %q", again)
	}
}
