package loop

// agentstate.go: the states the session itself left its files in, which
// a rewind or a redo compares with before touching a file (pure: reads the
// history and the rewinds only).
//
// For each file a rewind would restore, the session last left it as the
// newest of its records that touched it says: the "after" of a step's
// patch that lists the file, or the "after" of a rewind or redo whose
// scope held it. The file must still be so now. Between two steps of the
// taken-back range that both changed the file, the file must also be as
// the first left it when the second began: a hand edit between turns that
// the agent then edited over is still someone else's change, and the
// rewind would erase it. Taken-back steps count for neither: a rewind
// already undid them.

import (
	"sort"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/snapshot"
)

// touch is one record that left files in a known state.
type touch struct {
	id            string // time-ordered: part or rewind id
	before, after string
	inRange       bool // a step's patch from message from on
}

// agentExpectations returns what a restore of paths must check: each
// path as the session last left it, and the seams between the steps from
// message from on that changed it (target: the snapshot the range began
// from, "" for a redo).
func agentExpectations(history []message.Entry, rewinds []message.Rewind, from, target string, paths []string) []snapshot.Expectation {
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	touches := map[string][]touch{} // path → records, oldest first
	for _, e := range history {
		if e.Message.Rewound() {
			continue
		}
		for _, p := range e.Parts {
			if p.Type != message.PartPatch || p.Patch == nil || p.Patch.After == "" {
				continue
			}
			for _, f := range p.Patch.Files {
				if want[f.Path] {
					touches[f.Path] = append(touches[f.Path], touch{id: p.ID, before: p.Patch.Before, after: p.Patch.After, inRange: e.Message.ID >= from})
				}
			}
		}
	}
	byID := map[string]message.Rewind{}
	for _, rw := range rewinds {
		byID[rw.ID] = rw
	}
	for _, rw := range rewinds {
		if rw.After == "" {
			continue
		}
		until := rw.ID
		if rw.Kind == message.RewindKindRedo {
			until = byID[rw.Redoes].ID
		}
		_, scope := patchesFrom(history, rw.MessageID, until)
		for _, p := range scope {
			if want[p] {
				touches[p] = append(touches[p], touch{id: rw.ID, after: rw.After})
			}
		}
	}

	type key struct{ at, against string }
	group := map[key][]string{}
	for path, ts := range touches {
		sort.Slice(ts, func(i, j int) bool { return ts[i].id < ts[j].id })
		last := ts[len(ts)-1]
		group[key{last.after, ""}] = append(group[key{last.after, ""}], path)
		state := target // the path as the session left it, within the range
		for _, cur := range ts {
			if !cur.inRange {
				continue
			}
			if state != "" && cur.before != "" && cur.before != state {
				k := key{state, cur.before}
				group[k] = append(group[k], path)
			}
			state = cur.after
		}
	}
	out := make([]snapshot.Expectation, 0, len(group))
	for k, ps := range group {
		sort.Strings(ps)
		out = append(out, snapshot.Expectation{At: snapshot.ID(k.at), Against: snapshot.ID(k.against), Paths: ps})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].At != out[j].At {
			return out[i].At < out[j].At
		}
		return out[i].Against < out[j].Against
	})
	return out
}

// unsurePaths returns the files the steps from message from on (before
// until, when set) changed without the session being sure it was them
// (message.PatchFile.Unsure), with why: a restore asks before touching
// them.
func unsurePaths(history []message.Entry, from, until string) map[string]string {
	var out map[string]string
	for _, e := range history {
		if e.Message.ID < from || (until != "" && e.Message.ID >= until) {
			continue
		}
		for _, p := range e.Parts {
			if p.Type != message.PartPatch || p.Patch == nil {
				continue
			}
			for _, f := range p.Patch.Files {
				if f.Unsure != "" {
					if out == nil {
						out = map[string]string{}
					}
					out[f.Path] = f.Unsure
				}
			}
		}
	}
	return out
}
