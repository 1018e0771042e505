package config

// Reasoning-effort levels a model takes, as the models.dev data names them
// (reasoning_options type "effort"). A set of them is a bit mask so that
// ModelInfo stays a comparable value.

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Efforts is the set of reasoning-effort levels a model takes; 0 means the
// catalog names none (the model takes no effort, or nothing is known).
type Efforts uint16

// effortNames are the levels in the order of increasing effort, except
// "default", which models.dev lists for servers that take the word itself.
var effortNames = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max", "default"}

// ParseEfforts is the set of the named levels; an unknown name is an error
// naming it.
func ParseEfforts(levels []string) (Efforts, error) {
	var e Efforts
	for _, l := range levels {
		i := effortIndex(l)
		if i < 0 {
			return 0, fmt.Errorf("unknown reasoning effort %q: want one of %s", l, strings.Join(effortNames, ", "))
		}
		e |= 1 << i
	}
	return e, nil
}

func effortIndex(level string) int {
	for i, n := range effortNames {
		if n == level {
			return i
		}
	}
	return -1
}

// Values are the levels of e, from the least effort to the most.
func (e Efforts) Values() []string {
	var out []string
	for i, n := range effortNames {
		if e&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// Allows reports whether level is one of e's.
func (e Efforts) Allows(level string) bool {
	i := effortIndex(level)
	return i >= 0 && e&(1<<i) != 0
}

// String is the levels joined by "|" ("low|medium|high"), "" for none.
func (e Efforts) String() string { return strings.Join(e.Values(), "|") }

// MarshalJSON writes the levels as a list of names.
func (e Efforts) MarshalJSON() ([]byte, error) {
	v := e.Values()
	if v == nil {
		v = []string{}
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads a list of names; an unknown one is an error.
func (e *Efforts) UnmarshalJSON(b []byte) error {
	var levels []string
	if err := json.Unmarshal(b, &levels); err != nil {
		return err
	}
	v, err := ParseEfforts(levels)
	*e = v
	return err
}
