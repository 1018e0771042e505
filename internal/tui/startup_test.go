package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/storage"
)

// TestFirstFrameNeedsNoStore: with Options.OpenStore the welcome screen is
// drawn while the database is still opening, a message typed meanwhile
// waits for it and then goes, and the chat closes the store it opened.
func TestFirstFrameNeedsNoStore(t *testing.T) {
	release := make(chan struct{})
	var opened *storage.Store
	h := newHarness(t, []pt.Step{pt.Text("Answer after the open.")}, func(o *Options) {
		st := o.Loop.Store
		o.Loop.Store = nil
		o.OpenStore = func(context.Context) (*storage.Store, error) {
			<-release
			opened = st
			return st, nil
		}
	})
	if h.m.opt.Loop.Store != nil {
		t.Fatal("the store is there before it opened")
	}
	if s := h.screen(); !strings.Contains(s, "Tips") || !strings.Contains(s, "Message the agent") {
		t.Fatalf("no welcome screen before the store opened:\n%s", s)
	}
	h.typeText("hello there")
	h.key("enter")
	if len(h.srv.Requests()) != 0 {
		t.Fatal("sent before the store opened")
	}
	close(release)
	h.waitScreen("Answer after the open.")
	if h.m.opt.Loop.Store != opened || !h.m.store.owned {
		t.Error("the chat does not hold the store it opened")
	}
	if msgs := h.srv.Requests()[0].Chat.Messages; msgs[len(msgs)-1].Content != "hello there" {
		t.Errorf("request ends with %q", msgs[len(msgs)-1].Content)
	}
}

// TestStoreOpenFailureEndsTheChat: a database that cannot be opened ends
// the chat with the error, as it did before the first frame.
func TestStoreOpenFailureEndsTheChat(t *testing.T) {
	boom := errors.New("open agent.db: disk I/O error")
	h := newHarness(t, nil, func(o *Options) {
		o.Loop.Store = nil
		o.OpenStore = func(context.Context) (*storage.Store, error) { return nil, boom }
	})
	h.waitFor("the chat to quit", func(*Model) bool { return h.quit })
	if !errors.Is(h.m.fatal, boom) {
		t.Errorf("fatal = %v, want %v", h.m.fatal, boom)
	}
}

// TestCloseWhileTheStoreOpens: closing the chat while the database is
// still opening waits for the open and closes what it opened.
func TestCloseWhileTheStoreOpens(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, nil, func(o *Options) {
		st := o.Loop.Store
		o.Loop.Store = nil
		o.OpenStore = func(context.Context) (*storage.Store, error) { <-release; return st, nil }
	})
	h.typeText("hi")
	h.key("enter") // an open waits for the store
	go close(release)
	h.m.Close()
	if !h.m.store.ready() {
		t.Error("Close returned before the open it waited for")
	}
}
