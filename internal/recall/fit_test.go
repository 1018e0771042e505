package recall

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// TestFetchFitsTheOutputToTheRoom: with little room in the context, a
// fetch keeps the text's head and tail within the room and says which
// lines it left out and how to read them; a call whose input is as long
// as the room still shows its output.
func TestFetchFitsTheOutputToTheRoom(t *testing.T) {
	f := newFixture(t)
	const room = 6000
	fetch := func(ref string) string {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"ref": ref})
		res := f.reg.Run(tools.WithResultRoom(context.Background(), room), f.env, tools.Call{ID: "c", Name: Name, Input: b})
		if res.IsError {
			t.Fatal(res.Output)
		}
		return res.Output
	}
	out := fetch(f.saved.ID)
	if len(out) > room || !strings.Contains(out, "log line 1\n") || !strings.Contains(out, "log line 2000\n") ||
		!strings.Contains(out, "cut from the middle") || !strings.Contains(out, "offset=") || !strings.Contains(out, f.saved.Tool.FullOutputPath) {
		t.Errorf("fetch of 4,501 saved lines in %d bytes: %d bytes\n%.300s\n…\n%s", room, len(out), out, out[max(0, len(out)-600):])
	}

	if !strings.Contains(out, "offset=2001") {
		t.Errorf("the fitted page does not say where the text continues after it:\n%s", out[max(0, len(out)-600):])
	}

	big := f.part(t, &message.ToolState{CallID: "call_w", Name: "write", Status: message.ToolCompleted,
		Input: `{"path":"a.txt","content":"` + strings.Repeat("x", 3*room) + `"}`, Output: "BEGIN " + strings.Repeat("y", 3*room) + " END"})
	out = fetch(big.ID)
	if len(out) > room+1024 || !strings.Contains(out, "BEGIN ") || !strings.Contains(out, " END") || !strings.Contains(out, "header cut") {
		t.Errorf("fetch of a call with a long input: %d bytes\n%.300s\n…\n%s", len(out), out, out[max(0, len(out)-400):])
	}
	// Without a room, the usual 50 KB pages.
	if whole := f.run(t, map[string]any{"ref": big.ID}); !strings.Contains(whole.Output, strings.Repeat("y", 3*room)) {
		t.Errorf("fetch without a room cut the output: %d bytes", len(whole.Output))
	}
}
