package main

import (
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2EWebFetchDenyHoldsForFullwidthHost: the real binary, --yes, a
// config allowing every domain but localhost; the model spells localhost
// in fullwidth letters (net/http folds them to ASCII and dials
// localhost). The deny holds: the call is refused, the page never served.
func TestE2EWebFetchDenyHoldsForFullwidthHost(t *testing.T) {
	var hits atomic.Int32
	page := serveE2EPage(t, &hits)
	_, port, _ := net.SplitHostPort(page.Listener.Addr().String())
	e := newEnv(t,
		pt.ToolCall("c1", "web_fetch", fmt.Sprintf(`{"url":%q}`, "http://ＬＯＣＡＬＨＯＳＴ:"+port+"/docs")),
		pt.Text("done"))
	writeConfig(t, e, `{"tools": {"web_fetch": {"allow_private": true}}, "permissions": {"web_fetch": {"*": "allow", "localhost": "deny"}}}`)
	res := e.run("", "run", "--yes", "--format", "json", "read the docs")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var out string
	for _, ev := range jsonEvents(t, res.stdout) {
		if ev["type"] == "tool_result" && ev["id"] == "c1" {
			out, _ = ev["output"].(string)
		}
	}
	if !strings.Contains(out, "permission denied") || !strings.Contains(out, "localhost") {
		t.Errorf("c1: %q, want a denial naming localhost", out)
	}
	if hits.Load() != 0 {
		t.Errorf("the denied host was fetched %d times", hits.Load())
	}
}
