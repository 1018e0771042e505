package main

// --effort: the reasoning effort of a run's requests. The word is checked
// before anything starts; the level against the session's model (a
// continued session's is its own) once the session is open, before any
// request: a level the model does not take is bad usage (exit 2) naming
// the levels it takes.

import (
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
)

// effortWord refuses an --effort that names no level at all.
func effortWord(level string) error {
	if level != "" && !config.ValidEffortLevel(level) {
		return usageError("--effort: %v", config.EffortRule{}.Check(level))
	}
	return nil
}

// effortTaken refuses an --effort the model does not take.
func effortTaken(level, model string) error {
	if err := config.EffortRuleOf(model).Check(level); err != nil {
		return usageError("--effort %s: %v", level, err)
	}
	return nil
}

// effortChoice is the run's chosen effort for loop.Options (nil when no
// flag: the config's effort applies).
func effortChoice(level string) *loop.Effort {
	if level == "" {
		return nil
	}
	return loop.NewEffort(level)
}
