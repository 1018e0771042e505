package acp

// permission.go: the questions the agent's permission rules leave to the
// user, asked with session/request_permission. The rules (config
// permissions, the session's grants, the checks of paths outside the
// directory and of files that run as code) are applied first by
// tools.Permissions; only what they would ask in the chat reaches the
// client. Mode accept_edits answers a write or edit inside the directory
// that runs no code by itself. A cancelled question is a denial; the
// turn's own cancel follows from session/cancel.

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ctxloop/agent/internal/tools"
)

// The permission options offered.
const (
	optAllowOnce    = "allow_once"
	optAllowSession = "allow_session"
	optReject       = "reject"
)

type asker struct{ s *session }

var (
	_ tools.Asker       = (*asker)(nil)
	_ tools.AnswerAsker = (*asker)(nil)
	_ tools.DiffShower  = (*asker)(nil)
)

// ShowsOwnDiffs: a write or edit's diff is the one worked out as its call
// arrived (updates.go), from the editor's buffer; the permission check
// does not work it out again.
func (k *asker) ShowsOwnDiffs() bool { return true }

func (k *asker) Ask(ctx context.Context, req tools.Request) (tools.Reply, error) {
	a, err := k.AskAnswer(ctx, req)
	return a.Reply, err
}

func (k *asker) AskAnswer(ctx context.Context, req tools.Request) (tools.Answer, error) {
	s := k.s
	if (req.Tool == "write" || req.Tool == "edit") && !req.Outside && !req.RunsCode && s.acceptsEdits() {
		return tools.Answer{Reply: tools.AllowOnce}, nil
	}
	id, diff := s.calls.partOf(req.CallID)
	call := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(id), Title: sdk.Ptr(req.Title), Kind: sdk.Ptr(kindOf(req.Tool)),
		Status: sdk.Ptr(sdk.ToolCallStatusPending)}
	if diff != nil {
		call.Content = []sdk.ToolCallContent{*diff}
	}
	for _, p := range req.Paths {
		call.Locations = append(call.Locations, sdk.ToolCallLocation{Path: p})
	}
	if req.Reason != "" {
		call.Content = append(call.Content, sdk.ToolContent(sdk.TextBlock(req.Reason)))
	}
	always := "Allow for this session"
	if req.Tool == "bash" && len(req.Prefixes) > 0 {
		always = "Allow these commands for this session"
	}
	opts := []sdk.PermissionOption{
		{OptionId: optAllowOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: optAllowSession, Name: always, Kind: sdk.PermissionOptionKindAllowAlways},
		{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
	}
	if req.RunsCode || req.OutsideSandbox {
		opts = []sdk.PermissionOption{opts[0], opts[2]} // never granted for the session
	}
	resp, err := s.a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(s.id), ToolCall: call, Options: opts})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Answer{}, ctx.Err()
		}
		return tools.Answer{Reply: tools.Deny, Reason: "the editor did not answer the permission request: " + err.Error()}, nil
	}
	if resp.Outcome.Selected == nil {
		return tools.Answer{Reply: tools.Deny, StopTurn: true}, nil // cancelled
	}
	switch resp.Outcome.Selected.OptionId {
	case optAllowOnce:
		return tools.Answer{Reply: tools.AllowOnce}, nil
	case optAllowSession:
		return tools.Answer{Reply: tools.AllowSession}, nil
	}
	return tools.Answer{Reply: tools.Deny}, nil
}
