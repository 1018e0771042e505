package config

import (
	"encoding/json"
	"fmt"
)

// Verify configures the check before "done" (internal/verify): a turn that
// changed files and ran no build or test after gets one more step asking
// the model to verify. The config key "verify" is either a bool (false:
// off) or an object {"enabled": bool, "commands": [...]}; commands are
// the user's own build or test commands, matched as prefixes beside the
// known ones. A project file may set it: it only decides whether to ask.
type Verify struct {
	Enabled  bool
	Commands []string
}

// verifyFile is the "verify" value of a file: a bool or an object.
type verifyFile struct {
	Enabled  *bool    `json:"enabled"`
	Commands []string `json:"commands"`
}

// UnmarshalJSON takes true, false or the object form.
func (v *verifyFile) UnmarshalJSON(b []byte) error {
	var on bool
	if err := json.Unmarshal(b, &on); err == nil {
		v.Enabled = &on
		return nil
	}
	var obj struct {
		Enabled  *bool    `json:"enabled"`
		Commands []string `json:"commands"`
	}
	if err := json.Unmarshal(b, &obj); err != nil {
		return fmt.Errorf("verify: want true, false or {\"enabled\": bool, \"commands\": [\"...\"]}")
	}
	v.Enabled, v.Commands = obj.Enabled, obj.Commands
	return nil
}

// applyVerify sets c.Verify from a file's value (nil: unset).
func (c *Config) applyVerify(f *verifyFile) {
	if f == nil {
		return
	}
	setBool(&c.Verify.Enabled, f.Enabled)
	if f.Commands != nil {
		c.Verify.Commands = f.Commands
	}
}
