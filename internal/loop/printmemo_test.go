package loop

import (
	"context"
	"reflect"
	"testing"
)

// The first print after a resume, with the warming's memo, is the print
// made by hashing every message (differential), and it does take the
// memo's hashes (a memo of wrong hashes shows in it).
func TestPrintWithTheWarmingsMemoIsThePrintWithout(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	h.r.state.history = longHistory(t, h, 300)
	sp := h.r.stepper
	conv := sp.prepare()
	req := sp.finishRequest(ctx, conv)
	pins, _ := sp.pinsNow()
	hist := sp.history()
	memo := memoOf(conv.enc)
	if len(memo) < 600 {
		t.Fatalf("memo of %d encodings, want the history's", len(memo))
	}
	want := printRequest(req, conv.systems, pins, hist, nil, nil)
	got := printRequest(req, conv.systems, pins, hist, nil, memo)
	if !reflect.DeepEqual(got.msgs, want.msgs) || got.system != want.system || got.tools != want.tools {
		t.Fatal("the print with the memo differs from the print without it")
	}
	wrong := printMemo{}
	for k, v := range memo {
		wrong[k] = partPrint{hash: v.hash + 1, bytes: v.bytes}
	}
	if bad := printRequest(req, conv.systems, pins, hist, nil, wrong); reflect.DeepEqual(bad.msgs, want.msgs) {
		t.Error("the memo's hashes are not used")
	}
}
