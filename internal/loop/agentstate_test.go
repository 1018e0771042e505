package loop

import (
	"reflect"
	"testing"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/snapshot"
)

func patchEntry(msgID, partID, before, after string, paths ...string) message.Entry {
	ps := &message.PatchState{Before: before, After: after}
	for _, p := range paths {
		ps.Files = append(ps.Files, message.PatchFile{Path: p, Status: "modified"})
	}
	return message.Entry{
		Message: message.Message{ID: msgID, Role: message.RoleAssistant},
		Parts:   []message.Part{{ID: partID, Type: message.PartPatch, Patch: ps}},
	}
}

// TestAgentExpectationsCheckEachFileAgainstItsOwnLastState: a rewind of
// two turns compares a.txt with turn 1's "after" (not the newest
// snapshot, which holds the hand edit), b.txt with turn 2's; a file the
// agent edited again after a hand edit is checked at the seam too.
func TestAgentExpectationsCheckEachFileAgainstItsOwnLastState(t *testing.T) {
	cases := []struct {
		name    string
		history []message.Entry
		rewinds []message.Rewind
		from    string
		target  string
		paths   []string
		want    []snapshot.Expectation
	}{{
		name: "the hand edit between turns",
		history: []message.Entry{
			patchEntry("m1", "p1", "s0", "s1", "a.txt"),
			patchEntry("m2", "p2", "s2", "s3", "b.txt"),
		},
		from: "m1", target: "s0", paths: []string{"a.txt", "b.txt"},
		want: []snapshot.Expectation{{At: "s0", Against: "s2", Paths: []string{"b.txt"}}, {At: "s1", Paths: []string{"a.txt"}}, {At: "s3", Paths: []string{"b.txt"}}},
	}, {
		name: "edited over by the agent after a hand edit",
		history: []message.Entry{
			patchEntry("m1", "p1", "s0", "s1", "a.txt"),
			patchEntry("m2", "p2", "s2", "s3", "a.txt"),
		},
		from: "m1", target: "s0", paths: []string{"a.txt"},
		want: []snapshot.Expectation{{At: "s1", Against: "s2", Paths: []string{"a.txt"}}, {At: "s3", Paths: []string{"a.txt"}}},
	}, {
		name: "changed by the user after the range began, before the agent's first touch",
		history: []message.Entry{
			patchEntry("m1", "p1", "s0", "s1", "b.txt"),
			patchEntry("m2", "p2", "s2", "s3", "a.txt"),
		},
		from: "m1", target: "s0", paths: []string{"a.txt", "b.txt"},
		want: []snapshot.Expectation{{At: "s0", Against: "s2", Paths: []string{"a.txt"}}, {At: "s1", Paths: []string{"b.txt"}}, {At: "s3", Paths: []string{"a.txt"}}},
	}, {
		name: "one turn of consecutive steps: no seam",
		history: []message.Entry{
			patchEntry("m1", "p1", "s0", "s1", "a.txt"),
			patchEntry("m2", "p2", "s1", "s2", "a.txt"),
		},
		from: "m1", target: "s0", paths: []string{"a.txt"},
		want: []snapshot.Expectation{{At: "s2", Paths: []string{"a.txt"}}},
	}, {
		name: "two single undos: turn 2 undone (b.txt), then turn 1",
		history: func() []message.Entry {
			e := patchEntry("m2", "p2", "s2", "s3", "b.txt")
			e.Message.RewindID = "r1"
			return []message.Entry{patchEntry("m1", "p1", "s0", "s1", "a.txt"), e}
		}(),
		rewinds: []message.Rewind{{ID: "r1", Kind: message.RewindKindRewind, MessageID: "m2", Before: "s4", After: "s5"}},
		from:    "m1", target: "s0", paths: []string{"a.txt", "b.txt"},
		want: []snapshot.Expectation{{At: "s1", Paths: []string{"a.txt"}}, {At: "s5", Paths: []string{"b.txt"}}},
	}, {
		name: "a redo: the files as the rewind left them",
		history: func() []message.Entry {
			e := patchEntry("m1", "p1", "s0", "s1", "a.txt")
			e.Message.RewindID = "r1"
			return []message.Entry{e}
		}(),
		rewinds: []message.Rewind{{ID: "r1", Kind: message.RewindKindRewind, MessageID: "m1", Before: "s5", After: "s6"}},
		from:    "m1", paths: []string{"a.txt"},
		want: []snapshot.Expectation{{At: "s6", Paths: []string{"a.txt"}}},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := agentExpectations(c.history, c.rewinds, c.from, c.target, c.paths)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}
