package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUINotifyAndVi: ui.notify defaults to auto and takes the user's
// choice; an unknown value is an error naming the choices; ui.vi turns
// the editor's vi mode on; a project file sets neither.
func TestUINotifyAndVi(t *testing.T) {
	home := t.TempDir()
	repo := filepath.Join(t.TempDir(), "repo")
	c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if c.UI.Notify != NotifyAuto || c.UI.Vi {
		t.Errorf("defaults: notify %q vi %v, want auto and false", c.UI.Notify, c.UI.Vi)
	}
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{"ui": {"notify": "osc777", "vi": true}}`)
	c, err = Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if c.UI.Notify != NotifyOSC777 || !c.UI.Vi {
		t.Errorf("user file: notify %q vi %v, want osc777 and true", c.UI.Notify, c.UI.Vi)
	}

	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"), `{"ui": {"notify": "loud"}}`)
	if _, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home})); err == nil ||
		!strings.Contains(err.Error(), `ui.notify "loud"`) || !strings.Contains(err.Error(), "osc9") {
		t.Errorf("a bad ui.notify: err = %v", err)
	}

	home2 := t.TempDir()
	writeJSON(t, filepath.Join(repo, ".agent", "config.json"), `{"ui": {"notify": "off", "vi": true}}`)
	d, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home2}))
	if err != nil {
		t.Fatal(err)
	}
	if d.UI.Notify != NotifyAuto || d.UI.Vi {
		t.Errorf("from a project file: notify %q vi %v, want the defaults", d.UI.Notify, d.UI.Vi)
	}
	w := strings.Join(d.Warnings, "\n")
	for _, key := range []string{"ui.notify", "ui.vi"} {
		if !strings.Contains(w, key+" is ignored in a project file") {
			t.Errorf("no warning about the project's %s: %q", key, d.Warnings)
		}
	}
}
