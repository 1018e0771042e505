package task

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/tools"
	"github.com/ctxloop/agent/internal/webfetch"
)

// domainAsker allows each domain for the session and records the
// questions.
type domainAsker struct {
	mu    sync.Mutex
	asked []tools.Request
}

func (a *domainAsker) Ask(ctx context.Context, req tools.Request) (tools.Reply, error) {
	ans, err := a.AskAnswer(ctx, req)
	return ans.Reply, err
}

func (a *domainAsker) AskAnswer(_ context.Context, req tools.Request) (tools.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req)
	return tools.Answer{Reply: tools.AllowSession}, nil
}

// TestTaskChildFetchesThroughTheParentsDomainAsk: task.tools may name
// web_fetch (a tool the session offers beyond the built-in ones): the
// child gets the parent's web_fetch, and its first fetch of a domain asks
// the parent's asker, from the subagent, once per domain; the second
// fetch of the same domain is not asked again.
func TestTaskChildFetchesThroughTheParentsDomainAsk(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("the docs say 42"))
	}))
	defer web.Close()
	asker := &domainAsker{}
	cfg := config.Task{Tools: []string{"read", "web_fetch"}}
	p := newParent(t, func(o *loop.Options) {
		o.Perms = tools.NewPermissions(nil, asker, false)
		o.Tools = tools.NewRegistry().With(webfetch.Tools(webfetch.Config{Enabled: true, AllowPrivate: true})...)
		o.SessionTools = SessionTools(cfg)
	},
		taskCall("call_task", "read the docs", "What do the docs say?"),
		pt.ToolCall("c1", "web_fetch", `{"url":"`+web.URL+`/a"}`),
		pt.ToolCall("c2", "web_fetch", `{"url":"`+web.URL+`/b"}`),
		pt.Text("They say 42."),
		pt.Text("ok"),
	)
	if !New(cfg).ReadOnly() {
		t.Error("a task with read and web_fetch is not read-only")
	}
	if res := p.turn("go"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := toolNames(p.request(1)); !slices.Equal(got, []string{"read", "web_fetch", "recall"}) {
		t.Errorf("child's tools = %v", got)
	}
	if len(asker.asked) != 1 || asker.asked[0].Tool != "web_fetch" || asker.asked[0].Domain != "127.0.0.1" ||
		!strings.Contains(asker.asked[0].From, "the subagent “read the docs”") {
		t.Errorf("asked %+v, want web_fetch of 127.0.0.1 once, from the subagent", asker.asked)
	}
	h, err := p.store.LoadHistory(context.Background(), p.child().ID)
	if err != nil {
		t.Fatal(err)
	}
	fetched := 0
	for _, e := range h {
		for _, part := range e.Parts {
			if part.Tool != nil && part.Tool.Name == "web_fetch" {
				if part.Tool.Status != message.ToolCompleted || !strings.Contains(part.Tool.Output, "the docs say 42") {
					t.Errorf("child's fetch: %s %q", part.Tool.Status, part.Tool.Output)
				}
				fetched++
			}
		}
	}
	if fetched != 2 {
		t.Errorf("%d fetches in the child, want 2", fetched)
	}
	if st := p.taskPart(); st.Status != message.ToolCompleted || !strings.Contains(st.Output, "They say 42.") {
		t.Errorf("task part = %s %q", st.Status, st.Output)
	}
}
