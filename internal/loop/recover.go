package loop

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// processKey is the metadata key under which a running tool part records
// its process group (tools.ProcessGroup), so that after a crash the next
// Open can stop what the tool left running before calling it interrupted.
// The tool's result replaces the metadata when it finishes.
const processKey = "process"

// recordProcess stores the process group of the running call at
// e.Parts[ix] with its part.
func recordProcess(ctx context.Context, sp *stepper, e *message.Entry, ix int, g tools.ProcessGroup) {
	p := e.Parts[ix]
	st := *p.Tool
	meta := make(map[string]any, len(st.Metadata)+1)
	for k, v := range st.Metadata {
		meta[k] = v
	}
	meta[processKey] = g
	st.Metadata = meta
	p.Tool = &st
	sp.savePart(ctx, e, ix, p)
}

// stopOrphanedTools stops the process groups that parts, the session's
// unfinished tool parts, recorded: a crashed agent left them running. It
// runs in Open, under the session's lease and before the repair marks the
// parts interrupted (openrepair.go). Failures are reported, not fatal:
// the repair goes on.
func stopOrphanedTools(parts []*message.Part) []error {
	var errs []error
	for _, p := range parts {
		g, ok := recordedProcess(p)
		if !ok {
			continue
		}
		if _, err := tools.StopProcessGroup(g); err != nil {
			errs = append(errs, fmt.Errorf("tool call %s: %w", p.Tool.CallID, err))
		}
	}
	return errs
}

// recordedProcess reads the process group a tool part recorded.
func recordedProcess(p *message.Part) (tools.ProcessGroup, bool) {
	if p.Tool == nil || p.Tool.Metadata[processKey] == nil {
		return tools.ProcessGroup{}, false
	}
	b, err := json.Marshal(p.Tool.Metadata[processKey])
	if err != nil {
		return tools.ProcessGroup{}, false
	}
	var g tools.ProcessGroup
	if json.Unmarshal(b, &g) != nil || g.PGID <= 1 {
		return tools.ProcessGroup{}, false
	}
	return g, true
}
