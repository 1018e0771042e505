package storage

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"
)

// stateSeeds are the stored states of parts of every kind with their
// fields set, and hand-written states a decoder may meet: other cases of
// the keys, unknown keys, nulls, escapes and invalid UTF-8, wrong types.
func stateSeeds(t testing.TB) [][]byte {
	now := time.Date(2026, 11, 26, 11, 0, 0, 123456789, time.UTC)
	parts := []message.Part{
		{Type: message.PartText, Text: "plain text"},
		{Type: message.PartText, Text: "escapes \"quoted\" \\ \n\t \u2028 é \x1b[31m red"},
		{Type: message.PartTool, Tool: &message.ToolState{CallID: "call_1", Name: "bash", Status: message.ToolCompleted,
			Input: `{"command":"go test ./..."}`, Output: "line\nline\n", RawOutput: "raw", Title: "go test",
			Metadata: map[string]any{"exit": 1.0, "nested": map[string]any{"a": []any{"b", 2.5, nil, true}}},
			Progress: "50%", Truncated: true, FullOutputPath: "/tmp/out", StartedAt: now, EndedAt: now, CompactedAt: now,
			Images: []*message.FileState{{Kind: "image", Path: "a.png", MIME: "image/png", SizeBytes: 12}},
			Echo:   json.RawMessage(`{"k":[1,2,{"x":null}]}`)}},
		{Type: message.PartStepFinish, Step: &message.StepState{Usage: message.Usage{Input: 20000, Output: 150, Reasoning: 3, CachedInput: 100, CacheWrite: 7},
			CostUSD: 0.0123, FinishReason: "stop", Estimate: 19000, Calibration: 1.07, RequestEstimate: 18000, UsageSuspect: true, Echo: json.RawMessage(`"x"`)}},
		{Type: message.PartCompaction, Compaction: &message.CompactionState{Auto: true, Reason: "overflow", Focus: "f", TokensBefore: 1, TokensAfter: 2,
			Rejected: true, SummaryID: "s", TailFrom: "t", HeadUpTo: "h", Outcome: "summary", Model: "m", Error: "e", Attempt: 2, DroppedTurns: 3,
			Note: "n", UndoneAt: now, Emergency: true, OriginalSummary: "o", Edits: 4}},
		{Type: message.PartPatch, Patch: &message.PatchState{Before: "a", After: "b",
			Files:   []message.PatchFile{{Path: "x.go", Status: "modified", LinesAdded: 1, LinesDeleted: 2, Binary: true}},
			Skipped: []message.PatchSkip{{Path: "big", Reason: "size", Bytes: 9}}, Outside: []message.PatchOutside{{Path: "/etc", Status: "m", Session: "s", Why: "w"}},
			Lost: []message.PatchSkip{}}},
		{Type: message.PartFile, File: &message.FileState{Kind: "file", Path: "a.go", Content: "package a", Truncated: true, Count: 3, Error: "e", IsError: true}},
	}
	var seeds [][]byte
	for i := range parts {
		s, err := encodeState(&parts[i])
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, []byte(s))
	}
	return append(seeds,
		[]byte(`{"TEXT":"upper","Tool":{"CALL_ID":"c","name":"x","unknown":[1,{"a":2}]}}`),
		[]byte(`{"text":null,"tool":null,"step":{"usage":null,"echo":null}}`),
		[]byte("{\"text\":\"bad \xff\xfe utf8 \\ud800 lone\"}"),
		[]byte(`{"step":{"usage":{"input":1.5}}}`),
		[]byte(`{"tool":{"started_at":"not a time"}}`),
		[]byte(`{"text":"a","text":"b"}`),
		[]byte(`{"tool":{"metadata":{"n":1e400}}}`),
		[]byte(`{"text":"x"} trailing`),
		[]byte(`[]`), []byte(`null`), []byte(``), []byte(`{"compaction":{"attempt":"2"}}`),
		// At the edges of plainText: what it takes, what it leaves.
		[]byte(`{"text":""}`), []byte(`{"text":"é \u00e9 <&> "}`), []byte("{\"text\":\"tab\there\"}"),
		[]byte(`{"text":"a"}"}`), []byte(`{"text":"a","tool":{"name":"b"}}`), []byte(`{"text":"a"} `), []byte(` {"text":"a"}`),
		[]byte("{\"text\":\"\xc3\"}"), []byte(`{"text":"a\"}`), []byte(`{"text":"`), []byte(`{"text":"}`),
	)
}

// A part's state decodes to what encoding/json makes of the same bytes,
// and is refused exactly when encoding/json refuses it.
func FuzzStateDecodesAsEncodingJSON(f *testing.F) {
	for _, s := range stateSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want, got partState
		wantErr := json.Unmarshal(data, &want)
		gotErr := unmarshalState(data, &got)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%q: encoding/json says %v, unmarshalState %v", data, wantErr, gotErr)
		}
		if wantErr == nil && !reflect.DeepEqual(want, got) {
			t.Fatalf("%q:\nencoding/json  %#v\nunmarshalState %#v", data, want, got)
		}
	})
}

// TestPlainTextTakesOnlyWhatNeedsNoDecoder: plainText takes a text
// state that a decoder would copy unchanged, gives what encoding/json
// gives for it, and leaves every other state to the decoders.
func TestPlainTextTakesOnlyWhatNeedsNoDecoder(t *testing.T) {
	for _, c := range []struct {
		state string
		take  bool
	}{
		{`{"text":"plain text, é ✓"}`, true},
		{`{"text":""}`, true},
		{"{\"text\":\"del \x7f\"}", true},
		{`{"text":"a\nb"}`, false},      // an escape
		{"{\"text\":\"a\tb\"}", false},  // a control character: refused by encoding/json
		{"{\"text\":\"\xff\"}", false},  // invalid UTF-8: replaced by encoding/json
		{`{"text":"a"}"}`, false},       // a quote inside
		{`{"text":"a","x":"b"}`, false}, // another key
		{`{"text":"a"} `, false},        // not exactly the shape
		{`{"TEXT":"a"}`, false},         // another case of the key
		{`{}`, false},
	} {
		text, ok := plainText([]byte(c.state))
		if ok != c.take {
			t.Errorf("plainText(%q) took it: %v, want %v", c.state, ok, c.take)
			continue
		}
		if !ok {
			continue
		}
		var want partState
		if err := json.Unmarshal([]byte(c.state), &want); err != nil || want != (partState{Text: text}) {
			t.Errorf("plainText(%q) = %q; encoding/json: %#v, %v", c.state, text, want, err)
		}
	}
}
