package tokens

import (
	"fmt"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// Test history builders. Ids are sortable like ULIDs: "m0001", "m0002"…
var t0 = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

type builder struct {
	n       int
	entries []message.Entry
}

func (b *builder) next() (string, time.Time) {
	b.n++
	return fmt.Sprintf("m%04d", b.n), t0.Add(time.Duration(b.n) * time.Second)
}

func (b *builder) msg(role message.Role, parts ...message.Part) *message.Entry {
	id, at := b.next()
	e := message.Entry{Message: message.Message{ID: id, Role: role, CreatedAt: at}}
	for _, p := range parts {
		pid, pat := b.next()
		p.ID, p.MessageID, p.CreatedAt, p.UpdatedAt = pid, id, pat, pat
		e.Parts = append(e.Parts, p)
	}
	b.entries = append(b.entries, e)
	return &b.entries[len(b.entries)-1]
}

func (b *builder) user(s string) *message.Entry {
	return b.msg(message.RoleUser, textPart(s))
}

func textPart(s string) message.Part { return message.Part{Type: message.PartText, Text: s} }

func toolPart(call, input, output string) message.Part {
	return message.Part{Type: message.PartTool, Tool: &message.ToolState{
		CallID: call, Name: "bash", Status: message.ToolCompleted, Input: input, Output: output}}
}

func stepPart(u message.Usage, estimate int64) message.Part {
	return message.Part{Type: message.PartStepFinish, Step: &message.StepState{Usage: u, Estimate: estimate}}
}

func compactionPart(c message.CompactionState) message.Part {
	return message.Part{Type: message.PartCompaction, Compaction: &c}
}

func TestEstimateEntries(t *testing.T) {
	// "bash" is 1 token with Chars; inputs and outputs are multiples of 4 bytes.
	compacted := toolPart("c2", text(5), text(300))
	compacted.Tool.CompactedAt = t0
	pending := toolPart("c3", text(5), "")
	pending.Tool.Status = message.ToolRunning
	empty := toolPart("c4", text(5), "")
	noCall := toolPart("", text(5), text(50)) // never sent: no call id

	tests := []struct {
		name      string
		entry     message.Entry
		roundtrip bool
		want      int64
	}{
		{"user text", message.Entry{Message: message.Message{Role: message.RoleUser},
			Parts: []message.Part{textPart(text(100))}}, false, 100 + 4},
		{"empty user message is skipped", message.Entry{Message: message.Message{Role: message.RoleUser}}, false, 0},
		{"assistant text and a tool call with its result", message.Entry{Message: message.Message{Role: message.RoleAssistant},
			Parts: []message.Part{textPart(text(10)), toolPart("c1", text(9), text(100))}}, false, 10 + 1 + 9 + 100 + 4 + 4},
		{"pruned output is the placeholder", message.Entry{Message: message.Message{Role: message.RoleAssistant},
			Parts: []message.Part{compacted}}, false, 1 + 5 + 9 + 4 + 4},
		{"unfinished call is interrupted", message.Entry{Message: message.Message{Role: message.RoleAssistant},
			Parts: []message.Part{pending}}, false, 1 + 5 + 8 + 4 + 4},
		{"empty output", message.Entry{Message: message.Message{Role: message.RoleAssistant},
			Parts: []message.Part{empty}}, false, 1 + 5 + 3 + 4 + 4},
		{"reasoning not sent back", message.Entry{Message: message.Message{Role: message.RoleAssistant},
			Parts: []message.Part{{Type: message.PartReasoning, Text: text(500)}, textPart(text(10))}}, false, 10 + 4},
		{"reasoning sent back", message.Entry{Message: message.Message{Role: message.RoleAssistant},
			Parts: []message.Part{{Type: message.PartReasoning, Text: text(500)}, textPart(text(10))}}, true, 510 + 4},
		{"failed empty assistant message is skipped", message.Entry{Message: message.Message{Role: message.RoleAssistant, Error: "boom"},
			Parts: []message.Part{{Type: message.PartReasoning, Text: text(50)}, noCall, stepPart(message.Usage{Input: 9}, 0)}}, false, 0},
		{"summary is sent with its preamble", message.Entry{Message: message.Message{Role: message.RoleAssistant, Summary: true},
			Parts: []message.Part{textPart(text(200)), stepPart(message.Usage{Input: 9000, Output: 300}, 0)}}, false, 25 + 200 + 4},
		{"compaction marker is not sent", message.Entry{Message: message.Message{Role: message.RoleUser},
			Parts: []message.Part{compactionPart(message.CompactionState{Auto: true})}}, false, 0},
	}
	for _, tt := range tests {
		got := estimateEntries([]message.Entry{tt.entry}, Chars{}, tt.roundtrip)
		if got != tt.want {
			t.Errorf("%s: cost %d, want %d", tt.name, got, tt.want)
		}
		if !tt.roundtrip {
			if got := EstimateEntries([]message.Entry{tt.entry}, Chars{}); got != tt.want {
				t.Errorf("%s: EstimateEntries %d, want %d", tt.name, got, tt.want)
			}
		}
	}
}

func ids(entries []message.Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Message.ID)
	}
	return out
}

func TestVisibleHistory(t *testing.T) {
	// Old turns, a compaction that kept a tail, the summary, then new turns.
	var b builder
	b.user("old")                                                                // m0001
	b.msg(message.RoleAssistant, textPart("old answer"))                         // m0003
	tail := b.user("tail question")                                              // m0005
	b.msg(message.RoleAssistant, textPart("tail answer"))                        // m0007
	marker := b.msg(message.RoleUser, compactionPart(message.CompactionState{})) // m0009
	sum := b.msg(message.RoleAssistant, textPart("summary"))                     // m0011
	sum.Message.Summary = true
	marker.Parts[0].Compaction.SummaryID = sum.Message.ID
	marker.Parts[0].Compaction.TailFrom = tail.Message.ID
	b.user("new")                                        // m0013
	b.msg(message.RoleAssistant, textPart("new answer")) // m0015

	v := VisibleHistory(b.entries)
	if v.Summary == nil || v.Summary.Message.ID != "m0011" {
		t.Fatalf("Summary = %v, want m0011", v.Summary)
	}
	if got, want := fmt.Sprint(ids(v.Kept)), "[m0005 m0007]"; got != want {
		t.Errorf("Kept = %s, want %s (marker excluded)", got, want)
	}
	if got, want := fmt.Sprint(ids(v.After)), "[m0013 m0015]"; got != want {
		t.Errorf("After = %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(ids(v.Entries())), "[m0011 m0005 m0007 m0013 m0015]"; got != want {
		t.Errorf("Entries = %s, want %s", got, want)
	}
	if v.Len() != 5 {
		t.Errorf("Len = %d, want 5", v.Len())
	}
	// Idempotent: history already in sent order splits the same way.
	again := VisibleHistory(v.Entries())
	if again.Summary == nil || again.Summary.Message.ID != "m0011" ||
		fmt.Sprint(ids(again.Kept)) != "[m0005 m0007]" || fmt.Sprint(ids(again.After)) != "[m0013 m0015]" {
		t.Errorf("VisibleHistory(Entries()) = %v / %v / %v", again.Summary, ids(again.Kept), ids(again.After))
	}

	// Without a tail, only the summary and what follows.
	marker.Parts[0].Compaction.TailFrom = ""
	if got, want := fmt.Sprint(ids(VisibleHistory(b.entries).Entries())), "[m0011 m0013 m0015]"; got != want {
		t.Errorf("no tail: Entries = %s, want %s", got, want)
	}
	// Without a summary, everything but markers.
	sum.Message.Summary = false
	if got, want := fmt.Sprint(ids(VisibleHistory(b.entries).Entries())), "[m0001 m0003 m0005 m0007 m0011 m0013 m0015]"; got != want {
		t.Errorf("no summary: Entries = %s, want %s", got, want)
	}
}

// TestVisibleHistoryHead: a "summarise after here" compaction
// (CompactionState.HeadUpTo) sends what was sent before it up to the
// chosen message — the previous compaction's kept tail and what followed
// its summary, not that summary — then its own summary, then the rest; a
// second one keeps the first one's head; sent order splits the same way;
// Restore prices the head.
func TestVisibleHistoryHead(t *testing.T) {
	var b builder
	b.user("old")                                                                 // m0001
	tail := b.user("tail question")                                               // m0003
	marker1 := b.msg(message.RoleUser, compactionPart(message.CompactionState{})) // m0005
	sum1 := b.msg(message.RoleAssistant, textPart("summary one"))                 // m0007
	sum1.Message.Summary = true
	marker1.Parts[0].Compaction.SummaryID, marker1.Parts[0].Compaction.TailFrom = sum1.Message.ID, tail.Message.ID
	b.msg(message.RoleAssistant, toolPart("c1", "{}", text(40)))                  // m0009 (part m0010)
	b.user("tangent")                                                             // m0011
	b.msg(message.RoleAssistant, textPart("tangent answer"))                      // m0013
	marker2 := b.msg(message.RoleUser, compactionPart(message.CompactionState{})) // m0015
	sum2 := b.msg(message.RoleAssistant, textPart("summary two"))                 // m0017
	sum2.Message.Summary = true
	marker2.Parts[0].Compaction.SummaryID, marker2.Parts[0].Compaction.HeadUpTo = sum2.Message.ID, "m0009"
	b.user("new") // m0019

	v := VisibleHistory(b.entries)
	if got, want := fmt.Sprint(ids(v.Entries())), "[m0003 m0009 m0017 m0019]"; got != want {
		t.Fatalf("Entries = %s, want %s", got, want)
	}
	if got, want := fmt.Sprintf("%v %v %v %v", ids(v.Head), v.Summary.Message.ID, ids(v.Kept), ids(v.After)), "[m0003 m0009] m0017 [] [m0019]"; got != want {
		t.Errorf("Head, Summary, Kept, After = %s, want %s", got, want)
	}
	again := VisibleHistory(v.Entries())
	if got, want := fmt.Sprintf("%v %v %v %v", ids(again.Head), again.Summary.Message.ID, ids(again.Kept), ids(again.After)), "[m0003 m0009] m0017 [] [m0019]"; got != want {
		t.Errorf("VisibleHistory(Entries()) = %s, want %s", got, want)
	}
	if got, want := EstimateEntries(v.Entries(), Chars{}), estimateVisible(v, Chars{}, false); got != want {
		t.Errorf("estimateVisible = %d, EstimateEntries = %d", want, got)
	}
	if got, want := Restore(Options{}, Chars{}, 0, 0, b.entries).Reading().Total, EstimateEntries(v.Entries(), Chars{}); got != want {
		t.Errorf("Restore total = %d, want the visible estimate %d", got, want)
	}

	// A second "summarise after here" keeps the first one's head.
	b.msg(message.RoleAssistant, textPart("new answer"))                          // m0021
	marker3 := b.msg(message.RoleUser, compactionPart(message.CompactionState{})) // m0023
	sum3 := b.msg(message.RoleAssistant, textPart("summary three"))               // m0025
	sum3.Message.Summary = true
	marker3.Parts[0].Compaction.SummaryID, marker3.Parts[0].Compaction.HeadUpTo = sum3.Message.ID, "m0019"
	if got, want := fmt.Sprint(ids(VisibleHistory(b.entries).Entries())), "[m0003 m0009 m0019 m0025]"; got != want {
		t.Errorf("second head: Entries = %s, want %s", got, want)
	}
	// Undone, the first head-keeping compaction is in force again.
	marker3.Parts[0].Compaction.UndoneAt = t0
	if got, want := fmt.Sprint(ids(VisibleHistory(b.entries).Entries())), "[m0003 m0009 m0017 m0019 m0021]"; got != want {
		t.Errorf("undone: Entries = %s, want %s", got, want)
	}
}
