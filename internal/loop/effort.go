package loop

// The reasoning effort of a session's requests. The user chooses a level
// (agent run --effort, the chat's /effort) into an Effort, which the
// caller makes and hands to Open in Options.Effort and keeps to change it;
// without one, the config's models.NAME.effort of the model in force
// applies. The stepper puts the level on each step's request
// (provider.Request.Effort, a parameter: the messages do not change) when
// the model takes it (config.EffortRule): a model whose catalog row says
// it does not reason is sent none, so switching to one silently drops the
// effort, and switching back restores it.

import (
	"sync"

	"github.com/ctxloop/agent/internal/config"
)

// Effort is the reasoning effort the user chose; the zero value and a nil
// *Effort chose none. Safe for concurrent use: the chat sets it while the
// loop reads it.
type Effort struct {
	mu    sync.Mutex
	level string
}

// NewEffort is an Effort that chose level ("" for none).
func NewEffort(level string) *Effort { return &Effort{level: level} }

// Set chooses level from the next request on; "" goes back to the
// config's. The caller checks it first (config.EffortRule.Check).
func (e *Effort) Set(level string) {
	e.mu.Lock()
	e.level = level
	e.mu.Unlock()
}

// Chosen is the level chosen, "" when none (or e is nil).
func (e *Effort) Chosen() string {
	if e == nil {
		return ""
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.level
}

// EffortSent is the level a request to model (whose config and catalog
// info is info) carries: the one chosen in e, else info.Effort (the
// config's); "" when neither, or when the model does not take it.
func EffortSent(e *Effort, model string, info config.ModelInfo) string {
	level := e.Chosen()
	if level == "" {
		level = info.Effort
	}
	if config.EffortRuleOf(model).Check(level) != nil {
		return ""
	}
	return level
}
