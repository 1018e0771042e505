package tools

// How bash meets the OS sandbox (internal/sandbox), the contract:
//
//   - Env.Sandbox is the session's setting; a command runs confined when
//     its mode is not off and the sandbox runs on this machine (else as
//     before, under the permission prompts).
//   - Confined, bash needs no approval: the sandbox is the permission
//     (Permissions.Check). A bash the configuration denies stays denied.
//   - A confined command that fails because of the sandbox gets a note
//     naming what was denied and how the user can allow it
//     (sandbox.Explain). When someone can be asked (the chat), they are
//     first asked whether to run it outside the sandbox once
//     (Env.AskOutside, a Request with OutsideSandbox set); yes runs it
//     again unconfined, with the permission rules of an unconfined bash
//     having been the user's answer. Headless, nobody is asked (not even
//     with --yes: the sandbox was asked for): the note is the result.

import (
	"context"

	"github.com/ctxloop/agent/internal/sandbox"
)

// sandboxPolicy is the policy a bash call of env runs under now.
func sandboxPolicy(env *Env) sandbox.Policy {
	if env == nil || !env.Sandbox.Active() {
		return sandbox.Policy{Mode: sandbox.ModeOff}
	}
	p := env.Sandbox.Policy()
	p.Workspace = env.Dir
	return p
}

// sandboxed reports whether bash calls of env run confined, which makes
// them need no approval.
func sandboxed(env *Env) bool { return sandboxPolicy(env).Mode != sandbox.ModeOff }

// sandboxOutcome finishes a bash result res run under pol: a failure the
// sandbox caused is explained, or, when the user allows it, run again
// outside the sandbox with rerun.
func sandboxOutcome(ctx context.Context, env *Env, call Call, pol sandbox.Policy, res Result, rerun func() Result) Result {
	if pol.Mode == sandbox.ModeOff {
		return res
	}
	if res.Metadata != nil {
		res.Metadata["sandbox"] = string(pol.Mode)
	}
	if !res.IsError || ctx.Err() != nil {
		return res
	}
	note := sandbox.Explain(res.Output, pol)
	if note == "" {
		return res
	}
	if env.AskOutside != nil {
		req := Request{Tool: "bash", CallID: call.ID, Title: res.Title, Command: commandOf(call), OutsideSandbox: true, From: env.AskFrom,
			Reason: "the sandbox denied " + sandbox.Summary(res.Output, pol) + "; run it outside the sandbox once?"}
		req.Commands, _ = shellCommands(req.Command)
		if env.AskOutside(ctx, req) {
			out := rerun()
			if out.Metadata != nil {
				out.Metadata["sandbox"] = "outside once"
			}
			return out
		}
	}
	res.Output = joinStatus(res.Output, note)
	if res.RawOutput != "" {
		res.RawOutput = joinStatus(res.RawOutput, note)
	}
	if res.Metadata != nil {
		res.Metadata["sandbox_denied"] = true
	}
	return res
}

func commandOf(call Call) string {
	var in bashInput
	decodeInput(call.Input, &in)
	return in.Command
}
