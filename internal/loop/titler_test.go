package loop

import (
	"context"
	"sync"
	"testing"

	"github.com/ctxloop/agent/internal/budget"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// titleRig is a titler whose model answers answer (or blocks until
// cancelled when block is set), with the session's title in memory; no
// Runner, no provider.
type titleRig struct {
	t      *titler
	mu     sync.Mutex
	title  string
	calls  int
	usage  []float64
	models []string
}

func newTitleRig(t *testing.T, title, answer string, block bool) *titleRig {
	rig := &titleRig{title: title}
	cfg := &config.Config{SmallModel: "small", DataDir: t.TempDir(), BaseURL: "http://127.0.0.1:1"}
	rig.t = &titler{d: titleDeps{
		cfg:      cfg,
		reserve:  func(string, int64, int64) (*budget.Reservation, error) { return nil, nil },
		estimate: func(provider.Request) int64 { return 1 },
		complete: func(ctx context.Context, req provider.Request) (string, *message.Usage, error) {
			rig.mu.Lock()
			rig.calls++
			rig.models = append(rig.models, req.Model)
			rig.mu.Unlock()
			if block {
				<-ctx.Done()
				return "", nil, ctx.Err()
			}
			return answer, &message.Usage{Input: 10, Output: 3}, nil
		},
		cost: func(string, message.Usage) float64 { return 0.25 },
		addUsage: func(_ context.Context, _ message.Usage, c float64) {
			rig.mu.Lock()
			rig.usage = append(rig.usage, c)
			rig.mu.Unlock()
		},
		title: func() string { rig.mu.Lock(); defer rig.mu.Unlock(); return rig.title },
		setTitle: func(_ context.Context, s string) {
			rig.mu.Lock()
			rig.title = s
			rig.mu.Unlock()
		},
	}}
	return rig
}

func TestTitlerReplacesTheProvisionalTitleOnce(t *testing.T) {
	rig := newTitleRig(t, "fix the parser please", `Title: "Fixing the Parser."`, false)
	rig.t.request("fix the parser please", "fix the parser please")
	<-rig.t.done()
	rig.t.request("fix the parser please", "fix the parser please") // at most one request
	<-rig.t.done()
	if rig.title != "Fixing the Parser" {
		t.Errorf("title = %q; want the model's, cleaned", rig.title)
	}
	if rig.calls != 1 || rig.models[0] != "small" {
		t.Errorf("%d requests to %v; want one to small_model", rig.calls, rig.models)
	}
	if len(rig.usage) != 1 || rig.usage[0] != 0.25 {
		t.Errorf("usage added: %v; want the call's cost once", rig.usage)
	}
}

func TestTitlerKeepsATitleChangedMeanwhile(t *testing.T) {
	rig := newTitleRig(t, "renamed by the user", "Model Title", false)
	rig.t.request("first message", "first message")
	<-rig.t.done()
	if rig.calls != 1 || rig.title != "renamed by the user" {
		t.Errorf("calls %d, title %q; want one call and the user's title kept", rig.calls, rig.title)
	}
}

func TestTitlerStopCancelsTheRequestAndStartsNoOther(t *testing.T) {
	rig := newTitleRig(t, "first", "Never", true)
	select {
	case <-rig.t.done():
	default:
		t.Fatal("done is not closed before any request")
	}
	rig.t.request("first", "first")
	select {
	case <-rig.t.done():
		t.Fatal("done closed while the request runs")
	default:
	}
	rig.t.stop() // returns only once the request has ended
	select {
	case <-rig.t.done():
	default:
		t.Fatal("done not closed after stop")
	}
	fresh := newTitleRig(t, "x", "X", false)
	fresh.t.stop()
	fresh.t.request("x", "x")
	<-fresh.t.done()
	if rig.title != "first" || fresh.calls != 0 {
		t.Errorf("title %q, requests after stop %d; want the title kept and none", rig.title, fresh.calls)
	}
}
