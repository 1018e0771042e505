package toolsearch

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/tools"
	"github.com/ctxloop/agent/internal/toolsearch/toolsearchtest"
)

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"github__list_pull_requests": {"github", "list", "pull", "requests"},
		"createIssue":                {"create", "issue"},
		"Send a Slack message!":      {"send", "a", "slack", "message"},
		"k8s-get_pods":               {"k8s", "get", "pods"},
		"":                           nil,
	} {
		if got := words(in); !slices.Equal(got, want) {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRank(t *testing.T) {
	ts := toolsearchtest.Tools(100)
	name := func(ix []int, i int) string {
		if i >= len(ix) {
			return ""
		}
		return ts[ix[i]].Name()
	}
	for _, c := range []struct {
		query, first string
		atLeast      int
	}{
		{"create issue on github", "github__create_issue", 10}, // every server creates issues; github's first
		{"jira__list_comment", "jira__list_comment", 1},        // an exact name first
		{"slack__get_user, k8s__watch_report", "slack__get_user", 2},
		{"GitHub Issues", "github__create_issue", 10}, // case and plural
		{"postgres", "postgres__create_issue", 10},    // a server: its tools in the source's order
		{"archive webhooks", "github__archive_webhook", 10},
		{"the tool", "", 0}, // nothing but stop words
		{"zebra", "", 0},
	} {
		ix := Rank(ts, c.query)
		if got := name(ix, 0); got != c.first || len(ix) < c.atLeast {
			t.Errorf("Rank(%q): first %q of %d, want %q of at least %d", c.query, got, len(ix), c.first, c.atLeast)
		}
	}
	// Two exact names both come before any keyword match.
	ix := Rank(ts, "slack__get_user, k8s__watch_report")
	if got := []string{name(ix, 0), name(ix, 1)}; !slices.Contains(got, "k8s__watch_report") {
		t.Errorf("two exact names: first two %v", got)
	}
}

// TestSearchResults: an empty query and a query matching nothing are
// answered with what to do next, and activate nothing.
func TestSearchResults(t *testing.T) {
	c := New(toolsearchtest.NewSource(toolsearchtest.Tools(30)), Options{})
	reg := tools.NewRegistry().With(c.Step(0, 0).Run...)
	call := func(input string) tools.Result {
		return reg.Run(context.Background(), &tools.Env{Dir: t.TempDir()}, tools.Call{ID: "c", Name: Name, Input: json.RawMessage(input)})
	}
	if res := call(`{"query":"  "}`); !res.IsError || !strings.Contains(res.Output, "empty") {
		t.Errorf("empty query: %+v", res)
	}
	res := call(`{"query":"zebra"}`)
	if res.IsError || !strings.Contains(res.Output, `No tool matches "zebra"`) || !strings.Contains(res.Output, "github (3 tools)") {
		t.Errorf("no match: %+v", res)
	}
	if res := call(`{"query":"issue"}`); !strings.Contains(res.Output, "5 of 30 tools match") || !strings.Contains(res.Output, "more tools match less well") {
		t.Errorf("more matches than shown:\n%s", res.Output)
	}
	if res := call(`{}`); !res.IsError || !strings.Contains(res.Output, "query") {
		t.Errorf("no query: %+v", res)
	}
}
