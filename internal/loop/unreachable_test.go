package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestUnreachableSmallModelIsRemembered (issue 27 item 8): a small_model
// the provider does not know (404) is remembered in the data directory, so
// the next process (a new Runner on the same data directory) neither asks
// it for a title nor for a summary; after unreachableFor it is tried
// again, and a success forgets the mark.
func TestUnreachableSmallModelIsRemembered(t *testing.T) {
	var down atomic.Bool
	down.Store(true)
	h := newHarnessWith(t, withSmallModel)
	h.srv.Handle(func(req pt.Request) pt.Step {
		if req.Chat.Model == "gpt-4.1-mini" && down.Load() {
			return pt.Step{Status: 404, Body: `{"error":{"message":"model not found","type":"invalid_request_error"}}`}
		}
		if isSummaryRequest(req.Chat.Messages) {
			return pt.Text(summaryText)
		}
		if req.Chat.Model == "gpt-4.1-mini" {
			return pt.Text("A title")
		}
		return pt.Text(long("answer", 3))
	})
	smallRequests := func() (n int) {
		for _, r := range h.srv.Requests() {
			if r.Chat.Model == "gpt-4.1-mini" {
				n++
			}
		}
		return n
	}
	ctx := context.Background()
	h.turn("hello there")
	<-h.r.TitleDone()
	if n := smallRequests(); n != 1 {
		t.Fatalf("%d requests to the small model, want the title's", n)
	}
	mark := filepath.Join(h.data, unreachableFile)
	if b, err := os.ReadFile(mark); err != nil || !strings.Contains(string(b), "gpt-4.1-mini") {
		t.Errorf("the unreachable small model is not remembered: %q %v", b, err)
	}

	// A new process: no title request, and the summary is written by the
	// main model at once.
	reopen := func() {
		t.Helper()
		h.r.Close()
		r, err := Open(ctx, h.r.opt, "")
		if err != nil {
			t.Fatal(err)
		}
		h.r = r
	}
	reopen()
	for _, q := range []string{"first", "second", "third"} {
		h.turn(q)
	}
	<-h.r.TitleDone()
	if err := h.r.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if n := smallRequests(); n != 1 {
		t.Errorf("%d requests to the small model remembered unreachable, want none after the first", n-1)
	}

	// Past unreachableFor it is tried again; a success forgets it.
	old := time.Now().Add(-unreachableFor - time.Minute)
	rewriteMarkTimes(t, mark, old)
	down.Store(false)
	reopen()
	h.turn("hello again")
	<-h.r.TitleDone()
	if n := smallRequests(); n != 2 {
		t.Errorf("%d requests to the small model after the mark expired, want 2", n)
	}
	if b, err := os.ReadFile(mark); err == nil && strings.Contains(string(b), "gpt-4.1-mini") {
		t.Errorf("a small model that answered is still marked: %s", b)
	}
}

// rewriteMarkTimes sets every mark of the file at path to at.
func rewriteMarkTimes(t *testing.T, path string, at time.Time) {
	t.Helper()
	u := unreachableModels{dir: filepath.Dir(path)}
	marks := u.read()
	for k, m := range marks {
		m.At = at
		marks[k] = m
	}
	u.write(marks)
}

// TestUnreachableMarksFileIsReadSafely: a FIFO, a link to /dev/zero or a
// huge file in place of unreachableFile is not read (it would hang the
// process or grow it); it remembers nothing, and neither call blocks.
func TestUnreachableMarksFileIsReadSafely(t *testing.T) {
	for _, kind := range []string{"fifo", "dev-zero", "oversize"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, unreachableFile)
			var err error
			switch kind {
			case "fifo":
				err = syscall.Mkfifo(path, 0o644)
			case "dev-zero":
				err = os.Symlink("/dev/zero", path)
			case "oversize":
				err = os.WriteFile(path, []byte(`{"x gpt-4.1-mini": {"at": "2000-01-01T00:00:00Z"}}`+strings.Repeat(" ", maxUnreachableFileBytes)), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			u := unreachableModels{dir: dir, baseURL: "x"}
			done := make(chan bool, 1)
			go func() { done <- u.Unreachable("gpt-4.1-mini", time.Now()) }()
			select {
			case got := <-done:
				if got {
					t.Errorf("a %s in place of the marks file marks the model unreachable", kind)
				}
			case <-time.After(2 * time.Second):
				t.Fatalf("reading a %s in place of the marks file blocks", kind)
			}
		})
	}
}
