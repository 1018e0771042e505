package main

// Issue 31: sandbox.network as a list of hosts, through the real binary:
// the agent re-executes itself as the sandbox's relay and proxies only the
// listed hosts.

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// httpHello listens on 127.0.0.1 and answers each HTTP request "hello"
// after reading it.
func httpHello(t *testing.T) string {
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
				defer c.Close()
				c.Read(make([]byte, 4096))
				fmt.Fprint(c, "HTTP/1.0 200 OK\r\nContent-Length: 6\r\n\r\nhello\n")
			}()
		}
	}()
	return ln.Addr().String()
}

// TestE2ESandboxHostAllowList: with "network": [the allowed server], curl
// reaches it from inside the sandbox (plain and through a CONNECT tunnel),
// while another local server is refused with its host named to the model
// and how the user can allow it.
func TestE2ESandboxHostAllowList(t *testing.T) {
	needSandboxE2E(t)
	if _, err := os.Stat("/usr/bin/curl"); err != nil {
		t.Skip("skipping: no curl")
	}
	ok, other := httpHello(t), httpHello(t)
	e := newEnv(t,
		pt.ToolCall("ok", "bash", fmt.Sprintf(`{"command":"curl -sS --max-time 5 http://%s/"}`, ok)),
		pt.ToolCall("tunnel", "bash", fmt.Sprintf(`{"command":"curl -sS --max-time 5 --proxytunnel http://%s/"}`, ok)),
		pt.ToolCall("denied", "bash", fmt.Sprintf(`{"command":"curl -sS --max-time 5 --proxytunnel http://%s/"}`, other)),
		pt.Text("done"))
	writeConfig(t, e, fmt.Sprintf(`{"sandbox": {"mode": "workspace-write", "network": [%q]}}`, ok))
	res := e.run("", "run", "--format", "json", "fetch")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	got := resultsByID(t, res.stdout)
	for _, id := range []string{"ok", "tunnel"} {
		if !strings.Contains(got[id], "hello") || strings.Contains(got[id], "[sandbox") {
			t.Errorf("%s: the allowed host %s: %q", id, ok, got[id])
		}
	}
	d := got["denied"]
	if strings.Contains(d, "hello") {
		t.Errorf("the unlisted host was reached: %q", d)
	}
	for _, want := range []string{"network connection to " + other, `add "` + other + `" to "sandbox": {"network": [...]}`} {
		if !strings.Contains(d, want) {
			t.Errorf("denied: want %q in %q", want, d)
		}
	}
}

// TestE2ESandboxAnnouncedOnce: where the sandbox runs and the user has not
// configured one, the first agent run says how to turn it on; the next
// does not, nor does a run whose config chose a sandbox setting.
func TestE2ESandboxAnnouncedOnce(t *testing.T) {
	needSandboxE2E(t)
	const how = `/sandbox workspace-write; for every session, "sandbox": "workspace-write"`
	e := newEnv(t, pt.Text("one"), pt.Text("two"))
	for i, want := range []bool{true, false} {
		res := e.run("", "run", "hi")
		if res.code != 0 {
			t.Fatalf("run %d: exit %d: %s", i+1, res.code, res.stderr)
		}
		if got := strings.Contains(res.stderr, how); got != want {
			t.Errorf("run %d: announced %v, want %v; stderr %q", i+1, got, want, res.stderr)
		}
	}
	chose := newEnv(t, pt.Text("one"))
	writeConfig(t, chose, `{"sandbox": "off"}`)
	if res := chose.run("", "run", "hi"); res.code != 0 || strings.Contains(res.stderr, how) {
		t.Errorf("with sandbox configured: exit %d, stderr %q", res.code, res.stderr)
	}
}
