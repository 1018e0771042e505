package tools

import (
	"context"
	"fmt"
	"strings"
)

// Gated is implemented by tools from outside the agent (the tools of MCP
// servers). Whatever their input, they ask before they run unless the
// configuration allows them or the session granted them; nothing is known
// about what they touch, so there is no path check. PermissionKeys are the
// permissions keys that set the tool's mode, most specific first
// ("github__create_issue", then "github"): the first one configured wins.
type Gated interface {
	PermissionKeys() []string
}

// Check asks perms whether call may run, as Permissions.Check does, and
// knows r's tools: a Gated tool asks by default.
func (r *Registry) Check(ctx context.Context, env *Env, perms *Permissions, call Call) (ok bool, denial string, err error) {
	if g, isGated := r.byName[call.Name].(Gated); isGated {
		return perms.checkGated(ctx, call, g)
	}
	if d, isDomain := r.byName[call.Name].(DomainGated); isDomain {
		return perms.checkDomain(ctx, env, call, d.PermissionDomain(call.Input))
	}
	return perms.Check(ctx, env, call)
}

// gatedMode is the mode of a gated tool: its first configured key's, else
// ask. Only what the configuration says counts (not DefaultModes), and a
// key naming a built-in tool is not a gated tool's: a server called
// "read" does not inherit read's mode.
func (p *Permissions) gatedMode(keys []string) (Mode, string) {
	for _, k := range keys {
		if _, builtin := builtinRegistry().byName[k]; builtin {
			continue
		}
		if _, ok := p.configured[k]; ok {
			return p.Mode(k), k
		}
	}
	return ModeAsk, ""
}

// maxTitleArgs bounds the arguments shown in a gated call's title.
const maxTitleArgs = 200

// gatedTitle is the title of a gated call for the dialog: its name and
// arguments.
func gatedTitle(call Call) string {
	args := strings.Join(strings.Fields(string(call.Input)), " ")
	if args == "" || args == "{}" || args == "null" {
		return call.Name
	}
	if len(args) > maxTitleArgs {
		args = strings.ToValidUTF8(args[:maxTitleArgs], "") + "…"
	}
	return call.Name + " " + args
}

// GateText is implemented by a Gated tool that says what its dialog
// shows: the call's title (remember: the text to keep) and why it asks.
type GateText interface {
	GateText(call Call) (title, reason string)
}

func (p *Permissions) checkGated(ctx context.Context, call Call, g Gated) (bool, string, error) {
	keys := g.PermissionKeys()
	mode, key := p.gatedMode(keys)
	if mode == ModeDeny {
		return false, fmt.Sprintf("permission denied: the %s tool is disabled by the configuration (permissions.%s = \"deny\"); nothing was run. Do not retry it: do without it or ask the user.", call.Name, key), nil
	}
	if mode == ModeAllow {
		return true, "", nil
	}
	req := Request{Tool: call.Name, CallID: call.ID, Title: gatedTitle(call), Reason: "tools of MCP servers ask before they run"}
	if t, ok := g.(GateText); ok {
		req.Title, req.Reason = t.GateText(call)
	}
	if p.granted(req) || p.yes {
		return true, "", nil
	}
	if p.asker == nil {
		hint := fmt.Sprintf("the user can re-run with --yes, or set \"permissions\": {%q: \"allow\"} in the user config", call.Name)
		if len(keys) > 1 {
			hint += fmt.Sprintf(" (or {%q: \"allow\"} for all of its server's tools)", keys[len(keys)-1])
		}
		return false, fmt.Sprintf("permission denied: %s needs approval (%s) and nobody can approve it in this non-interactive run; nothing was run. To allow it, %s. Carry on without it, or explain what you need.", call.Name, req.Reason, hint), nil
	}
	return p.askUser(ctx, req, nil, nil)
}
