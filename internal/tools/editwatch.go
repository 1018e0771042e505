package tools

// editwatch.go: the seam through which a write or edit is watched (the
// language servers' diagnostics, internal/lsp). Env.Edits, when set, is
// told of the file before the tool runs and asked, once the tool changed
// it, for a note to append to the result. The observer must not fail or
// block the change: what it says is text, bounded in time by itself.

import (
	"context"
	"encoding/json"
)

// EditObserver watches the files write and edit change.
type EditObserver interface {
	// BeforeEdit is called with the absolute path a write or edit is
	// about to change; it returns the func called after a successful
	// change, whose note (often "") ends the result, or nil for nothing.
	BeforeEdit(ctx context.Context, env *Env, path string) func(ctx context.Context) string
}

// watchEdit runs the call of tool t under env.Edits when t changes a file.
func watchEdit(ctx context.Context, env *Env, t Tool, call Call) (Result, error) {
	after := beforeEdit(ctx, env, t.Name(), call.Input)
	res, err := t.Run(ctx, env, call)
	if after != nil && err == nil && !res.IsError {
		res.Output += after(ctx)
	}
	return res, err
}

func beforeEdit(ctx context.Context, env *Env, tool string, input json.RawMessage) func(context.Context) string {
	if env.Edits == nil || (tool != "write" && tool != "edit") {
		return nil
	}
	var in struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(input, &in) != nil || in.Path == "" {
		return nil
	}
	real, err := resolveLinks(absPath(env.Dir, in.Path))
	if err != nil {
		return nil
	}
	return env.Edits.BeforeEdit(ctx, env, real)
}
