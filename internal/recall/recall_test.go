package recall

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/tools"
)

func TestHorizonAndStatus(t *testing.T) {
	comps := []message.Part{
		{Compaction: &message.CompactionState{SummaryID: "M10", TailFrom: "M08", Outcome: message.CompactionSummary}},
		{Compaction: &message.CompactionState{SummaryID: "M20", Outcome: message.CompactionSummary, UndoneAt: time.Now()}},
		{Compaction: &message.CompactionState{Rejected: true, Outcome: message.CompactionRejected}},
	}
	hz := HorizonOf(comps)
	if hz != (Horizon{SummaryID: "M10", TailFrom: "M08"}) {
		t.Fatalf("horizon %+v: the undone and the rejected compactions count", hz)
	}
	terms := []string{"needle"}
	tool := func(msg string, st message.ToolState) storage.Hit {
		return storage.Hit{Part: message.Part{MessageID: msg, Type: message.PartTool, Tool: &st}}
	}
	for _, tc := range []struct {
		name string
		hit  storage.Hit
		want Status
	}{
		{"before the kept tail", storage.Hit{Part: message.Part{MessageID: "M07", Type: message.PartText}}, Summarised},
		{"in the kept tail", storage.Hit{Part: message.Part{MessageID: "M09", Type: message.PartText}}, Visible},
		{"after the summary", storage.Hit{Part: message.Part{MessageID: "M21", Type: message.PartText}}, Visible},
		{"pruned", tool("M21", message.ToolState{Output: "needle", CompactedAt: time.Now()}), Pruned},
		{"truncated, match shown", tool("M21", message.ToolState{Output: "a needle", Truncated: true}), Visible},
		{"truncated, match saved only", tool("M21", message.ToolState{Output: "head", Truncated: true}), Truncated},
	} {
		if got := StatusOf(tc.hit, hz, terms); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if !(Horizon{}).Sends("anything") {
		t.Error("without a summary everything is sent")
	}
}

type fixture struct {
	st      *storage.Store
	sess    *message.Session
	msg     *message.Message
	reg     *tools.Registry
	env     *tools.Env
	pruned  *message.Part
	visible *message.Part
	saved   *message.Part
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := storage.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &fixture{st: st, sess: &message.Session{Dir: "/w"}}
	if err := st.CreateSession(ctx, f.sess); err != nil {
		t.Fatal(err)
	}
	f.msg = &message.Message{SessionID: f.sess.ID, Role: message.RoleAssistant}
	if err := st.CreateMessage(ctx, f.msg); err != nil {
		t.Fatal(err)
	}
	savedPath := filepath.Join(t.TempDir(), "call_3.txt")
	var big strings.Builder
	for i := 1; i <= 4500; i++ {
		fmt.Fprintf(&big, "log line %d\n", i)
	}
	big.WriteString("FAIL: TestOrbit (the saved tail)\n")
	if err := os.WriteFile(savedPath, []byte(big.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	f.pruned = f.part(t, &message.ToolState{CallID: "call_1", Name: "bash", Status: message.ToolCompleted,
		Input: `{"command":"go test"}`, Output: "--- FAIL: TestOrbit\nwant 3, got MARKER_x9", CompactedAt: time.Now()})
	f.visible = f.part(t, &message.ToolState{CallID: "call_2", Name: "read", Status: message.ToolCompleted,
		Input: `{"path":"orbit.go"}`, Output: "func Orbit() { /* TestOrbit */ }"})
	f.saved = f.part(t, &message.ToolState{CallID: "call_3", Name: "bash", Status: message.ToolCompleted,
		Input: `{"command":"make"}`, Output: "log line 1\n[truncated]", Truncated: true, FullOutputPath: savedPath})
	f.reg = tools.NewRegistry().With(New(st, f.sess.ID))
	f.env = &tools.Env{Dir: t.TempDir()}
	return f
}

func (f *fixture) part(t *testing.T, ts *message.ToolState) *message.Part {
	t.Helper()
	p := &message.Part{SessionID: f.sess.ID, MessageID: f.msg.ID, Type: message.PartTool, Tool: ts}
	if err := f.st.UpsertPart(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fixture) run(t *testing.T, in map[string]any) tools.Result {
	t.Helper()
	b, _ := json.Marshal(in)
	return f.reg.Run(context.Background(), f.env, tools.Call{ID: "c", Name: Name, Input: b})
}

func TestSearchListsWhatIsOutOfSight(t *testing.T) {
	f := newFixture(t)
	res := f.run(t, map[string]any{"query": "TestOrbit"})
	if res.IsError {
		t.Fatal(res.Output)
	}
	if !strings.Contains(res.Output, "ref="+f.pruned.ID) || !strings.Contains(res.Output, "[pruned]") ||
		!strings.Contains(res.Output, "ref="+f.saved.ID) || !strings.Contains(res.Output, "[truncated]") ||
		!strings.Contains(res.Output, "call_id=call_1") || !strings.Contains(res.Output, "tool=bash") {
		t.Errorf("search result lacks the hidden matches:\n%s", res.Output)
	}
	if strings.Contains(res.Output, f.visible.ID) {
		t.Errorf("a visible match is listed without all:\n%s", res.Output)
	}
	if !strings.Contains(res.Output, "TestOrbit (the saved tail)") {
		t.Errorf("the truncated call's snippet is not from its saved output:\n%s", res.Output)
	}
	all := f.run(t, map[string]any{"query": "TestOrbit", "all": true})
	if !strings.Contains(all.Output, "ref="+f.visible.ID) || !strings.Contains(all.Output, "[visible]") {
		t.Errorf("all: true does not list the visible match:\n%s", all.Output)
	}
	none := f.run(t, map[string]any{"query": "Orbit func"})
	if none.IsError || !strings.Contains(none.Output, "still visible") {
		t.Errorf("only visible matches: %s", none.Output)
	}
}

func TestBadQueriesAreNeverSQLErrors(t *testing.T) {
	f := newFixture(t)
	for _, q := range []string{`"MARKER_x9`, `NEAR(MARKER x9)`, `MARKER*`, `x9 OR`, `-MARKER`} {
		res := f.run(t, map[string]any{"query": q})
		if res.IsError || !strings.Contains(res.Output, f.pruned.ID) {
			t.Errorf("query %q: %s", q, res.Output)
		}
	}
	for _, q := range []string{`*`, `"`, `()`} {
		res := f.run(t, map[string]any{"query": q})
		if !res.IsError || !strings.Contains(res.Output, "no words") || strings.Contains(res.Output, "SQL") {
			t.Errorf("query %q: %s", q, res.Output)
		}
	}
	if res := f.run(t, map[string]any{}); !res.IsError || !strings.Contains(res.Output, "needs a query") {
		t.Errorf("no arguments: %s", res.Output)
	}
}

func TestFetchByRefPagesAndRefusesOthers(t *testing.T) {
	f := newFixture(t)
	res := f.run(t, map[string]any{"ref": f.pruned.ID})
	if res.IsError || !strings.Contains(res.Output, "want 3, got MARKER_x9") || !strings.Contains(res.Output, `input: {"command":"go test"}`) {
		t.Fatalf("fetch by ref: %s", res.Output)
	}
	if byCall := f.run(t, map[string]any{"ref": "call_1"}); byCall.Output != res.Output {
		t.Errorf("fetch by call id differs:\n%s", byCall.Output)
	}

	// A saved output of 4,501 lines comes in pages of 2000 lines.
	page := f.run(t, map[string]any{"ref": f.saved.ID})
	if page.IsError || !strings.Contains(page.Output, "log line 2000\n") || strings.Contains(page.Output, "log line 2001\n") ||
		!strings.Contains(page.Output, "offset=2001") || page.Truncated {
		t.Fatalf("first page: %d bytes, ends %q", len(page.Output), page.Output[max(0, len(page.Output)-300):])
	}
	last := f.run(t, map[string]any{"ref": f.saved.ID, "offset": 4001})
	if !strings.Contains(last.Output, "FAIL: TestOrbit (the saved tail)") || strings.Contains(last.Output, "offset=") {
		t.Errorf("last page: %s", last.Output[max(0, len(last.Output)-300):])
	}

	// Unknown references and another session's parts are errors.
	other := &message.Session{Dir: "/w"}
	ctx := context.Background()
	if err := f.st.CreateSession(ctx, other); err != nil {
		t.Fatal(err)
	}
	om := &message.Message{SessionID: other.ID, Role: message.RoleUser}
	if err := f.st.CreateMessage(ctx, om); err != nil {
		t.Fatal(err)
	}
	op := &message.Part{SessionID: other.ID, MessageID: om.ID, Type: message.PartText, Text: "secret of another session"}
	if err := f.st.UpsertPart(ctx, op); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{op.ID, "01NOPE", "call_404"} {
		res := f.run(t, map[string]any{"ref": ref})
		if !res.IsError || !strings.Contains(res.Output, "no reference") || strings.Contains(res.Output, "secret") {
			t.Errorf("ref %s: %s", ref, res.Output)
		}
	}
	if res := f.run(t, map[string]any{"ref": "x", "query": "y"}); !res.IsError {
		t.Errorf("both ref and query: %s", res.Output)
	}
}

func TestPage(t *testing.T) {
	text := "a\nb\nc\nd\n"
	for _, tc := range []struct {
		from, limit int
		want        PageOf
	}{
		{1, 2, PageOf{Text: "a\nb\n", From: 1, Next: 3, Total: 4}},
		{3, 2, PageOf{Text: "c\nd\n", From: 3, Total: 4}},
		{5, 2, PageOf{From: 5, Total: 4}},
	} {
		if got := Page(text, tc.from, tc.limit, 1000); got != tc.want {
			t.Errorf("Page(%d, %d) = %+v, want %+v", tc.from, tc.limit, got, tc.want)
		}
	}
	// A page cut by bytes continues at the first line it did not finish.
	long := strings.Repeat("x", 30) + "\n" + strings.Repeat("y", 30) + "\n"
	if got := Page(long, 1, 10, 40); got.Next != 2 || !strings.HasPrefix(got.Text, strings.Repeat("x", 30)) {
		t.Errorf("byte-capped page %+v", got)
	}
}

// TestHorizonWithHead: a "summarise after here" compaction sends what the
// horizon before it sent up to the chosen message.
func TestHorizonWithHead(t *testing.T) {
	hz := HorizonOf([]message.Part{
		{Compaction: &message.CompactionState{SummaryID: "M10", TailFrom: "M08", Outcome: message.CompactionSummary}},
		{Compaction: &message.CompactionState{SummaryID: "M20", HeadUpTo: "M12", Outcome: message.CompactionSummary}},
	})
	for id, want := range map[string]bool{"M07": false, "M09": true, "M12": true, "M14": false, "M20": true, "M21": true} {
		if got := hz.Sends(id); got != want {
			t.Errorf("Sends(%s) = %v, want %v", id, got, want)
		}
	}
}
