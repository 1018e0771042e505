package loop

// Child sessions (subagents, internal/task) meet their parent's loop at two
// narrow points, and nowhere else:
//
//   - A tool call runs with its session in its context (ParentOf): a tool
//     that opens a child session takes the parent's store, provider,
//     configuration, permissions, directory, model and spending ledger
//     (Options.Ledger: one cap for the session and all its children,
//     budget.go) from there. The loop never imports the package that
//     does so; the tool joins through Options.SessionTools.
//   - A result whose Metadata carries a child's spending (SetChildUsage)
//     adds it to the session's totals when the result is stored
//     (finishTool), so the totals and `done` count it; the shared ledger
//     counted each of the child's requests as it ended.
//     Only the result's text enters the parent's context and its token
//     calculator: the child's tokens were spent in the child's own context.
//
// A call whose result is abandoned (it did not return within the
// registry's grace after a cancel) brings no metadata, and its child's
// spending is not added; a task tool returns promptly on cancel so that it
// is (see keptWhenInterrupted).

import (
	"context"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// Parent is the session a tool call runs in, as a tool may know it.
type Parent struct {
	ID    string
	Model string // the session's model now
	Dir   string // the session's directory
	// Options are the session's runner options (Store, Provider, Config,
	// Perms, OutputDir, Retry, Sleep, Estimator...); Observer, Doom and
	// SessionTools are the parent's own and not for a child.
	Options Options
	// BudgetUSD is the session's spending cap now (0: none) and SpentUSD
	// what the session and its subagents have cost so far, from the
	// session's ledger (Options.Ledger), which a child shares.
	BudgetUSD, SpentUSD float64
}

type parentKey struct{}

// ParentOf returns the session the tool call with this context runs in;
// false outside a session's tool call.
func ParentOf(ctx context.Context) (Parent, bool) {
	p, ok := ctx.Value(parentKey{}).(Parent)
	return p, ok
}

// withParent returns ctx carrying the session, for a tool call.
func (sp *stepper) withParent(ctx context.Context) context.Context {
	p := Parent{ID: sp.sessionID, Model: sp.modelPricing().model, Dir: sp.toolEnv.Dir, Options: sp.opt,
		BudgetUSD: sp.opt.Ledger.Cap(), SpentUSD: sp.opt.Ledger.Spent()}
	p.Options.CodeFiles = sp.toolEnv.CodeFiles // its hooks' files too
	if p.Model == "" {
		p.Model = sp.opt.Config.Model
	}
	return context.WithValue(ctx, parentKey{}, p)
}

// The Metadata keys of a child session's spending.
const (
	MetaChildUsage   = "child_usage"    // message.Usage
	MetaChildCostUSD = "child_cost_usd" // float64
)

// SetChildUsage records in a tool result's metadata what a child session
// spent, for the parent's loop to add to the parent's totals.
func SetChildUsage(md map[string]any, u message.Usage, costUSD float64) {
	md[MetaChildUsage] = u
	md[MetaChildCostUSD] = costUSD
}

// childUsage reads what SetChildUsage recorded; ok is false when the
// result carries no child spending.
func childUsage(md map[string]any) (u message.Usage, costUSD float64, ok bool) {
	u, ok = md[MetaChildUsage].(message.Usage)
	costUSD, _ = md[MetaChildCostUSD].(float64)
	return u, costUSD, ok && (u != message.Usage{} || costUSD != 0)
}

// addChildUsage adds a child session's spending, carried by a tool
// result, to the session's totals.
func (sp *stepper) addChildUsage(ctx context.Context, res tools.Result) {
	if u, cost, ok := childUsage(res.Metadata); ok {
		sp.addSessionUsage(ctx, u, cost)
	}
}
