package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestMentionAttachesContent: @file attaches the read tool's output, @dir/
// a listing; a missing or binary file is said so, and the message is sent.
func TestMentionAttachesContent(t *testing.T) {
	h := newHarness(t, pt.Text("seen"))
	os.WriteFile(filepath.Join(h.dir, "notes.md"), []byte("alpha line\nbeta line\n"), 0o644)
	os.MkdirAll(filepath.Join(h.dir, "pkg"), 0o755)
	os.WriteFile(filepath.Join(h.dir, "pkg", "x.go"), []byte("package pkg\n"), 0o644)
	os.WriteFile(filepath.Join(h.dir, "blob.bin"), []byte{0, 1, 2, 0, 0, 3}, 0o644)
	if res := h.turn("compare @notes.md with @pkg/ and @blob.bin and @gone.txt, thanks"); res.Err != nil {
		t.Fatal(res.Err)
	}
	msgs := h.request(0)
	got := msgs[len(msgs)-1].Content
	for _, want := range []string{
		"compare @notes.md with @pkg/ and @blob.bin and @gone.txt, thanks",
		"Contents of @notes.md", "alpha line", "beta line",
		"Listing of @pkg/", "x.go",
		"[@blob.bin could not be attached:", "[@gone.txt could not be attached:",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the request lacks %q:\n%s", want, got)
		}
	}
	hist := h.r.History()
	files := 0
	for _, p := range hist[0].Parts {
		if p.Type == message.PartFile {
			files++
		}
	}
	if files != 4 {
		t.Errorf("%d file parts stored, want 4", files)
	}
}

// TestQueuedMentionResolvesAtSendTime: a mention in a queued message
// attaches the file as it is when the message is delivered.
func TestQueuedMentionResolvesAtSendTime(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, blockedToolStep(release), pt.Text("ok"))
	path := filepath.Join(h.dir, "plan.txt")
	os.WriteFile(path, []byte("old plan\n"), 0o644)
	ctx := context.Background()
	h.r.Send(ctx, "start")
	h.srv.WaitRequests(ctx, 1)
	h.r.Send(ctx, "follow @plan.txt")
	os.WriteFile(path, []byte("new plan\n"), 0o644)
	close(release)
	if res := h.r.Wait(ctx); res.Err != nil {
		t.Fatal(res.Err)
	}
	msgs := h.request(1)
	got := msgs[len(msgs)-1].Content
	if !strings.Contains(got, "new plan") || strings.Contains(got, "old plan") {
		t.Errorf("the queued mention attached:\n%s", got)
	}
}

// TestRunShellOutputInNextRequest: !command runs without a model call and
// without asking, and its output is in the next request.
func TestRunShellOutputInNextRequest(t *testing.T) {
	h := newHarness(t, pt.Text("I see the files"))
	os.WriteFile(filepath.Join(h.dir, "marker-file.txt"), nil, 0o644)
	f, err := h.r.RunShell(context.Background(), "ls", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Content, "marker-file.txt") || f.IsError {
		t.Fatalf("output %+v", f)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Fatalf("%d model requests for a !command", n)
	}
	if res := h.turn("what do you see?"); res.Err != nil {
		t.Fatal(res.Err)
	}
	msgs := h.request(0)
	if got := msgs[len(msgs)-2].Content; !strings.Contains(got, "The user ran `ls`") || !strings.Contains(got, "marker-file.txt") {
		t.Errorf("the command's output is not before the message:\n%s", got)
	}
	if h.r.Session().Title != "what do you see?" {
		t.Errorf("title %q: a !command should not title the session", h.r.Session().Title)
	}
}
