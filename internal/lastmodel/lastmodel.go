// Package lastmodel remembers the model the user last chose (in the /model
// picker or with /model NAME), per project and globally, so that a new
// chat and `agent run` without --model use it instead of asking again.
//
// The memory is one JSON file, last-model.json in the data directory,
// written with mode 0600 through a temporary file and a rename (a crash
// leaves the old file or the new one, never half of one). A choice is kept
// per base URL: a name a local server serves means nothing to another
// server. Lookup prefers the project's choice (the exact directory) over
// the global one. A file that cannot be read or parsed is treated as
// empty: remembering is a convenience and never stops a start; Save
// reports its error for the caller to show.
//
// The memory is the lowest of the model's sources: a --model flag,
// AGENT_MODEL or a config file's "model" always win over it.
package lastmodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxloop/agent/internal/safefile"
)

// FileName is the memory's file in the data directory.
const FileName = "last-model.json"

// maxFileBytes bounds the file read: it holds a few names per project.
const maxFileBytes = 1 << 20

// Scope says which choice a remembered model is.
type Scope string

const (
	// None: nothing is remembered for this directory and server.
	None Scope = ""
	// Project: the choice last made in this directory.
	Project Scope = "project"
	// Global: the choice last made anywhere, for this server.
	Global Scope = "global"
)

// file is the memory on disk: base URL → model, globally and per
// project directory.
type file struct {
	Global   map[string]string            `json:"global,omitempty"`
	Projects map[string]map[string]string `json:"projects,omitempty"`
}

// Path is the memory's file in dataDir.
func Path(dataDir string) string { return filepath.Join(dataDir, FileName) }

func read(dataDir string) file {
	var f file
	data, err := safefile.Read(context.Background(), Path(dataDir), dataDir, maxFileBytes)
	if err != nil {
		return f
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return file{}
	}
	return f
}

func key(baseURL string) string { return strings.TrimRight(baseURL, "/") }

// Lookup is the model remembered for the project dir and the server
// baseURL, and whose choice it is; scope None when there is none.
func Lookup(dataDir, dir, baseURL string) (model string, scope Scope) {
	f := read(dataDir)
	if m := f.Projects[dir][key(baseURL)]; m != "" {
		return m, Project
	}
	if m := f.Global[key(baseURL)]; m != "" {
		return m, Global
	}
	return "", None
}

// Save remembers model as the choice for the project dir and, globally,
// for the server baseURL.
func Save(dataDir, dir, baseURL, model string) error {
	if model == "" || dataDir == "" {
		return errors.New("remember the model: no model or no data directory")
	}
	f := read(dataDir)
	if f.Global == nil {
		f.Global = map[string]string{}
	}
	f.Global[key(baseURL)] = model
	if dir != "" {
		if f.Projects == nil {
			f.Projects = map[string]map[string]string{}
		}
		if f.Projects[dir] == nil {
			f.Projects[dir] = map[string]string{}
		}
		f.Projects[dir][key(baseURL)] = model
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("remember the model: %w", err)
	}
	tmp, err := os.CreateTemp(dataDir, FileName+".*")
	if err != nil {
		return fmt.Errorf("remember the model: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("remember the model: %w", err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("remember the model: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("remember the model: %w", err)
	}
	if err := os.Rename(tmp.Name(), Path(dataDir)); err != nil {
		return fmt.Errorf("remember the model: %w", err)
	}
	return nil
}
