package overlay

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ctxloop/agent/internal/tools"
)

// TestPermissionChoicesOfACodeFile: a write to a file that runs as code
// offers allow once, deny, deny and stop — one "allow once", no session
// choice and no alt+s; any other request offers the session choice too.
func TestPermissionChoicesOfACodeFile(t *testing.T) {
	for _, tc := range []struct {
		req         tools.Request
		session     bool
		allowOnce   int
		choiceCount int
	}{
		{tools.Request{Tool: "write", Title: ".envrc", RunsCode: true}, false, 1, 3},
		{tools.Request{Tool: "write", Title: "main.go"}, true, 1, 4},
	} {
		d := NewPermissionDialog(PermissionAsk{Req: tc.req})
		var qs Questions
		qs.Add(d)
		view := ansi.Strip(strings.Join(d.View(fakeHost{}, &qs, 100, 30), "\n"))
		if n := strings.Count(view, "allow once"); n != tc.allowOnce {
			t.Errorf("%s: %d \"allow once\" in\n%s", tc.req.Title, n, view)
		}
		if got := d.Shortcut("alt+s"); got != tc.session {
			t.Errorf("%s: alt+s answers %v, want %v", tc.req.Title, got, tc.session)
		}
		if got := strings.Contains(view, "for this session"); got != tc.session {
			t.Errorf("%s: a session choice shown %v, want %v:\n%s", tc.req.Title, got, tc.session, view)
		}
		if d.row.n != tc.choiceCount {
			t.Errorf("%s: %d choices, want %d", tc.req.Title, d.row.n, tc.choiceCount)
		}
	}
}

// TestPermissionDomainChoice: a per-domain request (web_fetch) offers to
// allow that domain for the session, not the whole tool, or always.
func TestPermissionDomainChoice(t *testing.T) {
	d := NewPermissionDialog(PermissionAsk{Req: tools.Request{Tool: "web_fetch", Title: "web_fetch https://docs.python.org/3/", Domain: "docs.python.org"}})
	var qs Questions
	qs.Add(d)
	view := ansi.Strip(strings.Join(d.View(fakeHost{}, &qs, 120, 30), "\n"))
	if !strings.Contains(view, "allow docs.python.org for this session") || strings.Contains(view, "allow web_fetch for this session") ||
		!strings.Contains(view, "always allow docs.python.org · alt+w") {
		t.Errorf("view:\n%s", view)
	}
	reply := make(chan tools.Answer, 1)
	d = NewPermissionDialog(PermissionAsk{Req: tools.Request{Tool: "web_fetch", Domain: "go.dev"}, Reply: reply})
	qs = Questions{}
	qs.Add(d)
	if !d.Shortcut("alt+w") {
		t.Fatal("alt+w is not a choice")
	}
	d.choose(fakeHost{}, &qs, d.row.shortcuts["alt+w"])
	if got := <-reply; got.Reply != tools.AllowAlways {
		t.Errorf("always answered %v", got.Reply)
	}
}
