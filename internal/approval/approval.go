// Package approval remembers what the user allowed a project to run.
//
// A project's .agent/config.json comes with a cloned repository, so what it
// would start on the user's machine (an MCP server's command, a hook) runs
// only once the user has approved it. An approval covers exactly what was
// approved: it is keyed by the project file, the kind and name of the entry
// and a digest of the entry's content, so an entry that changes must be
// approved again. Approvals live in one JSON file in the data dir
// (approvals.json, 0600), written whole through a temporary file and a
// rename, so a reader never sees half a file. A missing or unreadable file
// approves nothing.
package approval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/safefile"
)

// Kinds of entries a project file may declare.
const (
	KindMCP  = "mcp"
	KindHook = "hook"
)

// FileName is the approvals file in the data dir.
const FileName = "approvals.json"

// Store is the approvals of one data dir. It is safe for concurrent use
// within a process; between processes the last write wins, and each write
// is the file re-read plus one change.
type Store struct {
	path string
	mu   sync.Mutex
}

// Entry is one approval.
type Entry struct {
	Project    string    `json:"project"` // the project file's absolute path
	Kind       string    `json:"kind"`
	Name       string    `json:"name"`
	Digest     string    `json:"digest"`
	ApprovedAt time.Time `json:"approved_at"`
}

// Open returns the store of dataDir; nothing is read until asked.
func Open(dataDir string) *Store {
	return &Store{path: filepath.Join(dataDir, FileName)}
}

// Digest is the digest of an entry's content: SHA-256 of its JSON.
func Digest(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(fmt.Sprint(v))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Approved reports whether the entry with this digest was approved.
func (s *Store) Approved(project, kind, name, digest string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, _ := s.read()
	for _, e := range entries {
		if e.Project == project && e.Kind == kind && e.Name == name && e.Digest == digest {
			return true
		}
	}
	return false
}

// Approve records the approval of the entry with this digest, replacing an
// earlier approval of the same entry.
func (s *Store) Approve(project, kind, name, digest string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, err := s.read()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("approve %s %s: %w", kind, name, err)
	}
	kept := entries[:0]
	for _, e := range entries {
		if !(e.Project == project && e.Kind == kind && e.Name == name) {
			kept = append(kept, e)
		}
	}
	kept = append(kept, Entry{Project: project, Kind: kind, Name: name, Digest: digest, ApprovedAt: time.Now().UTC()})
	sort.Slice(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		if a.Project != b.Project {
			return a.Project < b.Project
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Name < b.Name
	})
	if err := s.write(kept); err != nil {
		return fmt.Errorf("approve %s %s: %w", kind, name, err)
	}
	return nil
}

// maxFileBytes bounds the approvals file read.
const maxFileBytes = 4 << 20

// read reads the approvals by internal/safefile's rules (the data dir's
// file: a FIFO or a device in its place is refused without blocking, a
// huge one is not read); a missing file wraps fs.ErrNotExist.
func (s *Store) read() ([]Entry, error) {
	b, err := safefile.Read(context.Background(), s.path, filepath.Dir(s.path), maxFileBytes)
	if err != nil {
		return nil, err
	}
	var entries []Entry
	if err := json.Unmarshal(b, &entries); err != nil {
		return nil, fmt.Errorf("read %s: %w", s.path, err)
	}
	return entries, nil
}

func (s *Store) write(entries []Entry) error {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".approvals-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, s.path)
}
