package toolsearch_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
	"github.com/ctxloop/agent/internal/toolsearch"
	"github.com/ctxloop/agent/internal/toolsearch/toolsearchtest"
)

// TestFoundToolsDoNotChangeTheOfferUntilJoined: searches and calls between
// two boundaries leave the offered tools byte for byte as they were (the
// head of the provider's cached prefix); Join adds them; Options.Immediate
// is the old behaviour, which changes the offer at once.
func TestFoundToolsDoNotChangeTheOfferUntilJoined(t *testing.T) {
	offerJSON := func(st toolsearch.Step) string {
		b, _ := json.Marshal(tools.NewRegistry().With(st.Offer...).OpenAITools())
		return string(b)
	}
	c := toolsearch.New(toolsearchtest.NewSource(toolsearchtest.Tools(100)), toolsearch.Options{})
	first := offerJSON(c.Step(0, 0))
	run(t, c.Step(0, 0), toolsearch.Name, `{"query":"github pull request"}`)
	run(t, c.Step(0, 0), "slack__get_user", `{"user_id":"u1"}`)
	if got := offerJSON(c.Step(0, 0)); got != first {
		t.Fatalf("the offer changed mid-stretch:\n%s\n→\n%s", first, got)
	}
	c.Join()
	if got := offerJSON(c.Step(0, 0)); got == first {
		t.Fatal("Join did not add the found tools")
	}

	old := toolsearch.New(toolsearchtest.NewSource(toolsearchtest.Tools(100)), toolsearch.Options{Immediate: true})
	before := names(old.Step(0, 0).Offer)
	run(t, old.Step(0, 0), toolsearch.Name, `{"query":"github pull request"}`)
	if after := names(old.Step(0, 0).Offer); len(after) <= len(before) || slices.Contains(before, toolsearch.ProxyName) {
		t.Fatalf("immediate: offer %v → %v", before, after)
	}
}

// TestUnwrapProxyCall: a call_tool call stands for the tool it names with
// its arguments (same id), so the permission check, the hooks and the run
// see that tool; a malformed one stays call_tool, whose run says what to
// send and runs nothing.
func TestUnwrapProxyCall(t *testing.T) {
	in := tools.Call{ID: "c9", Name: toolsearch.ProxyName, Input: json.RawMessage(`{"name":"github__create_issue","arguments":{"issue_id":"4"}}`)}
	got := toolsearch.Unwrap(in)
	if got.ID != "c9" || got.Name != "github__create_issue" || string(got.Input) != `{"issue_id":"4"}` {
		t.Fatalf("Unwrap = %+v", got)
	}
	for _, bad := range []string{`{}`, `not json`, `{"name":"call_tool","arguments":{}}`, `{"name":"  "}`} {
		call := tools.Call{ID: "c", Name: toolsearch.ProxyName, Input: json.RawMessage(bad)}
		if got := toolsearch.Unwrap(call); got.Name != toolsearch.ProxyName {
			t.Errorf("Unwrap(%s) = %+v, want it unchanged", bad, got)
		}
		c := toolsearch.New(toolsearchtest.NewSource(toolsearchtest.Tools(3)), toolsearch.Options{})
		if res := run(t, c.Step(0, 0), toolsearch.ProxyName, bad); !res.IsError {
			t.Errorf("call_tool %s ran: %+v", bad, res)
		}
	}
	if got := toolsearch.Unwrap(tools.Call{Name: "bash", Input: json.RawMessage(`{"name":"x"}`)}); got.Name != "bash" {
		t.Errorf("a call of another tool was unwrapped: %+v", got)
	}
	// A call through the proxy activates the tool it names, on resume too.
	st := message.ToolState{Name: toolsearch.ProxyName, Input: `{"name":"jira__list_comment","arguments":{}}`}
	if got := toolsearch.ActivatedBy(st); !slices.Equal(got, []string{"jira__list_comment"}) {
		t.Errorf("ActivatedBy(call_tool) = %v", got)
	}
}
