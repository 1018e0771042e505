package loop

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

func TestTitleFromFirstMessageMakesNoExtraRequest(t *testing.T) {
	h := newHarness(t, pt.Text("Done."))
	if res := h.turn("\n  please fix   the login bug in auth.go\nand add a test"); res.Err != nil {
		t.Fatal(res.Err)
	}
	<-h.r.TitleDone()
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests for a one-step turn without small_model, want 1", n)
	}
	want := "please fix the login bug in auth.go"
	if got := h.r.Session().Title; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	stored, err := h.store.GetSession(context.Background(), h.r.Session().ID)
	if err != nil || stored.Title != want {
		t.Errorf("stored title = %q (%v)", stored.Title, err)
	}
}

func withSmallModel(o *Options, c *config.Config) { c.SmallModel = "gpt-4.1-mini" }

func TestTitleFromSmallModel(t *testing.T) {
	h := newHarnessWith(t, withSmallModel)
	h.srv.Handle(func(req pt.Request) pt.Step {
		if req.Chat.Model == "gpt-4.1-mini" {
			return pt.Text("Title: \"Fix the login bug.\"")
		}
		return pt.Text("Fixed.")
	})
	first := "the login in auth.go fails when the password has a space, fix it"
	if res := h.turn(first); res.Err != nil {
		t.Fatal(res.Err)
	}
	select {
	case <-h.r.TitleDone():
	case <-time.After(30 * time.Second):
		t.Fatal("the title request did not end")
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the step and the title", len(reqs))
	}
	var titleReqs int
	for _, r := range reqs {
		if r.Chat.Model != "gpt-4.1-mini" {
			continue
		}
		titleReqs++
		msgs := r.Chat.Messages
		if len(r.Chat.Tools) != 0 || len(msgs) != 2 || msgs[1].Content != first {
			t.Errorf("title request: %d tools, messages %+v", len(r.Chat.Tools), msgs)
		}
	}
	if titleReqs != 1 {
		t.Errorf("%d title requests to the small model, want 1", titleReqs)
	}
	const want = "Fix the login bug"
	if got := h.r.Session().Title; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	stored, err := h.store.GetSession(context.Background(), h.r.Session().ID)
	if err != nil || stored.Title != want {
		t.Errorf("stored title = %q (%v)", stored.Title, err)
	}
	// Both calls are billed to the session.
	if stored.Usage.Input <= h.r.History()[1].Message.Usage.Input {
		t.Errorf("session usage %+v does not include the title request", stored.Usage)
	}
	// A second message asks for no other title.
	if res := h.turn("thanks"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if n := len(h.srv.Requests()); n != 3 {
		t.Errorf("%d requests after a second turn, want 3", n)
	}
}

func TestTitleRequestFailureKeepsFirstMessageTitle(t *testing.T) {
	h := newHarnessWith(t, withSmallModel)
	h.srv.Handle(func(req pt.Request) pt.Step {
		if req.Chat.Model == "gpt-4.1-mini" {
			return pt.Step{Status: 404, Body: `{"error":{"message":"model not found","type":"invalid_request_error"}}`}
		}
		return pt.Text("Hello.")
	})
	if res := h.turn("hello there"); res.Err != nil {
		t.Fatal(res.Err)
	}
	<-h.r.TitleDone()
	if got := h.r.Session().Title; got != "hello there" {
		t.Errorf("title = %q", got)
	}
	if errs := h.eventsOf(message.EventError); len(errs) != 0 {
		t.Errorf("a failed title request was reported: %+v", errs)
	}
}

func TestCloseCancelsTitleRequest(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h := newHarnessWith(t, withSmallModel)
	h.srv.Handle(func(req pt.Request) pt.Step {
		if req.Chat.Model == "gpt-4.1-mini" {
			return pt.Reply(pt.TextChunk("Never"), pt.Block(release))
		}
		return pt.Text("Quick answer.")
	})
	if res := h.turn("a quick question"); res.Err != nil {
		t.Fatal(res.Err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.srv.WaitRequests(ctx, 2); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- h.r.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("Close waited for the title request")
	}
	select {
	case <-h.r.TitleDone():
	default:
		t.Error("the title request is still running after Close")
	}
	stored, err := h.store.GetSession(context.Background(), h.r.Session().ID)
	if err != nil || stored.Title != "a quick question" {
		t.Errorf("stored title = %q (%v)", stored.Title, err)
	}
}

func TestCleanTitle(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Fix login bug", "Fix login bug"},
		{"Title: Fix login bug.", "Fix login bug"},
		{"**\"Refactor the parser\"**\n\nExplanation follows.", "Refactor the parser"},
		{"<think>the user wants a title</think>\nAdd CSV export!", "Add CSV export"},
		{"<think>never finished", ""},
		{"  ", ""},
		{"# Débogage du serveur", "Débogage du serveur"},
		{strings.Repeat("word ", 30), strings.TrimSpace(TitleFrom(strings.Repeat("word ", 30)))},
	}
	for _, tt := range tests {
		if got := CleanTitle(tt.in); got != tt.want {
			t.Errorf("CleanTitle(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := CleanTitle("Rename \x1b[31mfiles\x07\r"); strings.ContainsAny(got, "\x1b\x07\r") {
		t.Errorf("CleanTitle kept terminal controls: %q", got)
	}
	if got := CleanTitle(strings.Repeat("long ", 40)); len([]rune(got)) > 61 {
		t.Errorf("title of %d runes", len([]rune(got)))
	}
}
