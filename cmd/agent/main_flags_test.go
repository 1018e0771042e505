package main

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"

	"github.com/ctxloop/agent/internal/earlygit"
)

// TestEarlyGitKnowsTheGlobalFlags keeps earlygit's list of the global
// flags that take a value whole: with one missing, `agent --flag value
// run` would not start the prompt's git status early, and `agent --flag
// run …` would start it for a command that is not run.
func TestEarlyGitKnowsTheGlobalFlags(t *testing.T) {
	newRootCmd().PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Value.Type() == "bool" {
			return
		}
		if !slices.Contains(earlygit.ValueFlags, "--"+f.Name) {
			t.Errorf("earlygit.ValueFlags lacks --%s", f.Name)
		}
	})
}
