package config

// A model's reasoning effort: the level the user's config chooses for it
// (models.NAME.effort, user file only) and what the catalog says it takes.
// The rule is the same for agent run --effort, the chat's /effort and the
// config key: a model whose catalog row says it does not reason takes no
// effort, a row that names levels takes those, and a model no row
// describes (a local server's, a new one) — or a reasoning row that names
// no levels — takes what the user asks, since nothing says otherwise.

import (
	"fmt"
	"strings"
)

// EffortRule is what the catalog in force says of a model's reasoning
// effort.
type EffortRule struct {
	Model string
	// Described says a catalog row describes the model; Reasoning and
	// Levels are that row's.
	Described bool
	Reasoning bool
	Levels    Efforts
}

// EffortRuleOf is the rule of model, from the catalog in force (not the
// config: declaring a model's window says nothing of its effort).
func EffortRuleOf(model string) EffortRule {
	info, ok := lookupCatalog(model)
	return EffortRule{Model: model, Described: ok, Reasoning: info.Reasoning, Levels: info.Efforts}
}

// EffortLevels are the level names the agent knows, from the least effort
// to the most ("default" aside: it is models.dev's word for a server's own
// choice, which sending nothing already is).
func EffortLevels() []string { return effortNames[:len(effortNames)-1] }

// ValidEffortLevel reports whether level is one of EffortLevels.
func ValidEffortLevel(level string) bool {
	i := effortIndex(level)
	return i >= 0 && i < len(effortNames)-1
}

// Takes reports whether the model takes any effort at all: false only for
// a catalog row that says it does not reason.
func (r EffortRule) Takes() bool { return !r.Described || r.Reasoning }

// Allowed describes the levels the model takes, for messages: "low,
// medium or high", "none (it does not reason)", or "any of …" when
// nothing limits them.
func (r EffortRule) Allowed() string {
	switch {
	case !r.Takes():
		return "none (its catalog row says it does not reason)"
	case r.Levels != 0:
		return orList(r.Levels.Values())
	}
	return "any of " + orList(EffortLevels()) + " (no catalog row names its levels)"
}

// Check is nil when level may be sent to the model ("" always may: it
// sends nothing), else an error naming the levels it takes.
func (r EffortRule) Check(level string) error {
	switch {
	case level == "":
		return nil
	case !ValidEffortLevel(level):
		return fmt.Errorf("unknown reasoning effort %q: want %s", level, orList(EffortLevels()))
	case !r.Takes():
		return fmt.Errorf("model %s takes no reasoning effort (its catalog row says it does not reason); leave the effort unset", r.Model)
	case r.Levels != 0 && !r.Levels.Allows(level):
		return fmt.Errorf("model %s takes reasoning effort %s, not %s", r.Model, orList(r.Levels.Values()), level)
	}
	return nil
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// dropUntakenEfforts unsets each models.NAME.effort its model does not
// take, with a warning naming the key and the levels it takes: the config
// stays usable, and nothing the model refuses is sent.
func (c *Config) dropUntakenEfforts() []string {
	var warnings []string
	for _, name := range sortedKeys(c.Models) {
		info := c.Models[name]
		if err := EffortRuleOf(name).Check(info.Effort); err != nil {
			warnings = append(warnings, fmt.Sprintf("models.%s.effort %q is ignored: %v", name, info.Effort, err))
			info.Effort = ""
			c.Models[name] = info
		}
	}
	return warnings
}
