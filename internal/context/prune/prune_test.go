package prune

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
)

var t0 = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

// history builds entries with sortable ids; tool parts are named by their
// call id so tests can say which were selected.
type history struct {
	n       int
	entries []message.Entry
}

func (h *history) id() string { h.n++; return fmt.Sprintf("m%04d", h.n) }

func (h *history) user(s string) *history {
	id := h.id()
	h.entries = append(h.entries, message.Entry{
		Message: message.Message{ID: id, Role: message.RoleUser},
		Parts:   []message.Part{{ID: h.id(), MessageID: id, Type: message.PartText, Text: s}},
	})
	return h
}

func (h *history) synthetic(s string) *history {
	h.user(s)
	h.entries[len(h.entries)-1].Message.Synthetic = true
	return h
}

// tool appends an assistant message with one tool call per size (tokens
// of output under chars/4).
func (h *history) tool(call string, outputTokens int) *history {
	return h.toolState(call, outputTokens, message.ToolCompleted, false)
}

func (h *history) toolState(call string, outputTokens int, status message.ToolStatus, compacted bool) *history {
	id := h.id()
	st := &message.ToolState{CallID: call, Name: "read", Status: status, Input: `{"path":"x"}`,
		Output: strings.Repeat("abcd", outputTokens)}
	if compacted {
		st.CompactedAt = t0
	}
	h.entries = append(h.entries, message.Entry{
		Message: message.Message{ID: id, Role: message.RoleAssistant},
		Parts: []message.Part{
			{ID: h.id(), MessageID: id, Type: message.PartText, Text: "looking"},
			{ID: call, MessageID: id, Type: message.PartTool, Tool: st},
		},
	})
	return h
}

func (h *history) summary(tailFrom string) *history {
	mid := h.id()
	sid := h.id()
	h.entries = append(h.entries,
		message.Entry{
			Message: message.Message{ID: mid, Role: message.RoleUser},
			Parts: []message.Part{{ID: h.id(), Type: message.PartCompaction,
				Compaction: &message.CompactionState{SummaryID: sid, TailFrom: tailFrom}}},
		},
		message.Entry{
			Message: message.Message{ID: sid, Role: message.RoleAssistant, Summary: true},
			Parts:   []message.Part{{ID: h.id(), Type: message.PartText, Text: "summary"}},
		})
	return h
}

// cleared is the placeholder's cost under chars/4.
var cleared = int64(tokens.Chars{}.Count(message.ClearedOutput))

func TestPass(t *testing.T) {
	small := Options{Protect: 10000, Minimum: 1000, ProtectTurns: 2}
	tests := []struct {
		name      string
		history   *history
		opt       Options
		wantIDs   []string
		wantSaved int64
	}{
		{
			name: "the last two turns are protected whatever their size",
			history: new(history).
				user("1").tool("t1", 30000).
				user("2").tool("t2", 30000).tool("t2b", 30000).
				user("3").tool("t3", 30000),
			opt:     small,
			wantIDs: []string{"t1"}, wantSaved: 30000 - cleared,
		},
		{
			name: "newest outputs within Protect are kept",
			history: new(history).
				user("1").tool("t1", 8000).tool("t1b", 5000).tool("t1c", 4000).
				user("2").user("3"),
			opt: small,
			// t1c 4000 + t1b 5000 = 9000 ≤ 10000 kept; t1 crosses → cleared.
			wantIDs: []string{"t1"}, wantSaved: 8000 - cleared,
		},
		{
			name: "protect boundary is exact: 40000 is kept, the next one is not",
			history: new(history).
				user("1").tool("a", 10000).tool("b", 10000).tool("c", 10000).
				tool("d", 10000).tool("e", 10000).tool("f", 10000).
				user("2").user("3"),
			opt:     Options{Protect: 40000, Minimum: 1000},
			wantIDs: []string{"b", "a"}, wantSaved: 2 * (10000 - cleared),
		},
		{
			name: "protect boundary minus one token clears one more",
			history: new(history).
				user("1").tool("a", 10000).tool("b", 10000).tool("c", 10000).
				tool("d", 10000).tool("e", 10000).tool("f", 10000).
				user("2").user("3"),
			opt:     Options{Protect: 39999, Minimum: 1000},
			wantIDs: []string{"c", "b", "a"}, wantSaved: 3 * (10000 - cleared),
		},
		{
			name: "stops at the summary",
			history: new(history).
				user("0").tool("before", 50000).
				summary("").
				user("1").tool("t1", 20000).tool("t1b", 10000).
				user("2").user("3"),
			opt:     small,
			wantIDs: []string{"t1"}, wantSaved: 20000 - cleared,
		},
		{
			name: "walks the tail a compaction kept, then stops",
			history: new(history).
				user("0").tool("before", 50000).
				user("kept").tool("kept", 20000). // m0004 starts the kept tail
				summary("m0004").
				user("1").tool("t1", 10000).
				user("2").user("3"),
			opt:     small,
			wantIDs: []string{"kept"}, wantSaved: 20000 - cleared,
		},
		{
			name: "stops at an output already cleared",
			history: new(history).
				user("1").tool("t1", 50000).
				toolState("done", 50000, message.ToolCompleted, true).
				tool("t2", 20000).tool("t3", 10000).
				user("2").user("3"),
			opt:     small,
			wantIDs: []string{"t2"}, wantSaved: 20000 - cleared,
		},
		{
			name: "minimum saving not reached: nothing",
			history: new(history).
				user("1").tool("t1", 10000).tool("t2", 20000).
				user("2").user("3"),
			opt: Options{Protect: 20000, Minimum: 10000 - cleared},
		},
		{
			name: "minimum saving just exceeded",
			history: new(history).
				user("1").tool("t1", 10000).tool("t2", 20000).
				user("2").user("3"),
			opt:     Options{Protect: 20000, Minimum: 10000 - cleared - 1},
			wantIDs: []string{"t1"}, wantSaved: 10000 - cleared,
		},
		{
			name: "a synthetic continue does not start a turn",
			history: new(history).
				user("1").tool("t1", 50000).
				user("2").tool("t2", 50000).
				synthetic("continue").tool("t3", 50000),
			opt: small, // turns: 2 (t2, continue, t3) and 1 (t1): all protected
		},
		{
			name: "errors and unfinished calls are neither counted nor cleared",
			history: new(history).
				user("1").tool("t1", 20000).
				toolState("err", 50000, message.ToolError, false).
				toolState("run", 50000, message.ToolRunning, false).
				tool("t2", 9000).
				user("2").user("3"),
			opt:     small,
			wantIDs: []string{"t1"}, wantSaved: 20000 - cleared,
		},
		{
			name:    "defaults: 40K protected, more than 20K saved",
			history: new(history).user("1").tool("a", 30000).tool("b", 30000).tool("c", 30000).user("2").user("3"),
			opt:     Options{},
			wantIDs: []string{"b", "a"}, wantSaved: 60000 - 2*cleared,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Pass(tt.history.entries, tokens.Chars{}, tt.opt)
			if !slices.Equal(res.PartIDs, tt.wantIDs) {
				t.Errorf("PartIDs = %v, want %v", res.PartIDs, tt.wantIDs)
			}
			if res.Parts != len(tt.wantIDs) {
				t.Errorf("Parts = %d, want %d", res.Parts, len(tt.wantIDs))
			}
			if res.TokensSaved != tt.wantSaved {
				t.Errorf("TokensSaved = %d, want %d", res.TokensSaved, tt.wantSaved)
			}
			if res.Walked == 0 {
				t.Error("Walked = 0")
			}
			// History already in sent order gives the same pass.
			sent := Pass(tokens.VisibleHistory(tt.history.entries).Entries(), tokens.Chars{}, tt.opt)
			if !slices.Equal(sent.PartIDs, res.PartIDs) || sent.TokensSaved != res.TokensSaved {
				t.Errorf("from sent order: %v %d, want %v %d", sent.PartIDs, sent.TokensSaved, res.PartIDs, res.TokensSaved)
			}
		})
	}
}

func TestPassEmptyHistory(t *testing.T) {
	if res := Pass(nil, nil, Options{}); res.Parts != 0 || res.Walked != 0 {
		t.Errorf("Pass(nil) = %+v", res)
	}
}

// BenchmarkPrunePass runs a pass over 1,000 messages (3,250 parts)
// with tool outputs from a line to 20 KB, none pruned yet, with chars/4 as
// the estimator (see Pass).
func BenchmarkPrunePass(b *testing.B) {
	h := new(history)
	sizes := []int{15, 100, 400, 1000, 3000, 5000, 60}
	for i := 0; len(h.entries) < 1000; i++ {
		if i%4 == 0 {
			h.user(fmt.Sprintf("turn %d", i))
			continue
		}
		h.tool(fmt.Sprintf("call%d", i), sizes[i%len(sizes)])
		// Step-start and step-finish parts, as stored.
		e := &h.entries[len(h.entries)-1]
		e.Parts = append([]message.Part{{ID: h.id(), Type: message.PartStepStart}}, e.Parts...)
		e.Parts = append(e.Parts, message.Part{ID: h.id(), Type: message.PartStepFinish,
			Step: &message.StepState{Usage: message.Usage{Input: 1000, Output: 20}}})
	}
	parts := 0
	for _, e := range h.entries {
		parts += len(e.Parts)
	}
	b.ReportAllocs()
	var res Result
	for b.Loop() {
		res = Pass(h.entries, tokens.Chars{}, Options{})
	}
	b.ReportMetric(float64(parts), "parts")
	if res.Walked != 1000 || res.Parts == 0 {
		b.Fatalf("walked %d, selected %d", res.Walked, res.Parts)
	}
}
