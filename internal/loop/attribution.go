package loop

// attribution.go: what a step's tools were, for the snapshot store to
// tell the step's own changes from everyone else's (snapshot.Attribute),
// and the patch part that records the split.

import (
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/snapshot"
)

// stepTools describes the tool calls of e (calls: their part indexes)
// after they ran between start and end: the paths write and edit changed
// (their metadata's resolved path, relative to workTree), the shell
// commands, and whether a tool of unknown reach ran (readOnly false for
// a tool that is neither).
func stepTools(e *message.Entry, calls []int, readOnly func(name string) bool, workTree, session string, start, end time.Time) snapshot.StepTools {
	st := snapshot.StepTools{Session: session, Start: start, End: end}
	for _, ix := range calls {
		tool := e.Parts[ix].Tool
		if tool == nil {
			continue
		}
		switch tool.Name {
		case "write", "edit":
			if p, ok := tool.Metadata["path"].(string); ok && p != "" {
				if rel, err := filepath.Rel(workTree, p); err == nil && filepath.IsLocal(rel) {
					st.Known = append(st.Known, filepath.ToSlash(rel))
				}
			}
		case "bash":
			var in struct {
				Command string `json:"command"`
			}
			if json.Unmarshal([]byte(tool.Input), &in) == nil && in.Command != "" {
				st.Commands = append(st.Commands, in.Command)
			}
		default:
			if !readOnly(tool.Name) {
				st.Opaque = true
			}
		}
	}
	return st
}

// splitPatch turns a step's attributed changes into the patch part's
// files (the step's own, unsure ones marked) and its outside changes.
func splitPatch(attributed []snapshot.Attributed) (files []message.PatchFile, outside []message.PatchOutside) {
	for _, a := range attributed {
		if a.Claim == snapshot.Outside {
			outside = append(outside, message.PatchOutside{Path: a.Path, Status: a.Status.String(), Session: a.Session, Why: a.Why})
			continue
		}
		pf := message.PatchFile{Path: a.Path, Status: a.Status.String(), LinesAdded: a.LinesAdded, LinesDeleted: a.LinesDeleted, Binary: a.Binary}
		if a.OldMode != a.NewMode && a.OldMode != "000000" && a.NewMode != "000000" {
			pf.OldMode, pf.NewMode = a.OldMode, a.NewMode
		}
		if a.Claim == snapshot.Unsure {
			pf.Unsure = a.Why
		}
		files = append(files, pf)
	}
	return files, outside
}
