package truncate

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// MaxAge is how long saved full outputs are kept before Clean removes them.
const MaxAge = 7 * 24 * time.Hour

// fileSuffix marks the files Saver writes, so Clean removes nothing else.
const fileSuffix = ".out"

// Saver writes full tool outputs into Dir (the data directory's outputs
// folder). The directory is created with mode 0700 and files with 0600: an
// output may hold anything a command printed. A Saver with an empty Dir
// saves nothing and reports ErrNoDir.
type Saver struct {
	Dir string
}

// ErrNoDir is returned by a Saver without a directory.
var ErrNoDir = errors.New("no output directory configured")

// Save writes everything from full into a new file named after callID and
// returns its path. A partial file is removed on error.
func (s Saver) Save(callID string, full io.Reader) (path string, err error) {
	f, err := s.Create(callID)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, full); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", fmt.Errorf("save output of %s: %w", callID, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("save output of %s: %w", callID, err)
	}
	return f.Name(), nil
}

// SaveString is Save for an output already in memory.
func (s Saver) SaveString(callID, full string) (path string, err error) {
	return s.Save(callID, strings.NewReader(full))
}

// Create opens a new empty file for the output of callID, for a caller that
// streams into it. The caller closes it; its Name is the path to report.
func (s Saver) Create(callID string) (*os.File, error) {
	if s.Dir == "" {
		return nil, fmt.Errorf("save output of %s: %w", callID, ErrNoDir)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("save output of %s: %w", callID, err)
	}
	// CreateTemp makes the name unique (call ids repeat across sessions)
	// and the file 0600.
	f, err := os.CreateTemp(s.Dir, time.Now().UTC().Format("20060102T150405")+"-"+safeName(callID)+"-*"+fileSuffix)
	if err != nil {
		return nil, fmt.Errorf("save output of %s: %w", callID, err)
	}
	return f, nil
}

// Clean removes saved outputs in dir last modified more than maxAge ago and
// returns how many it removed. A missing directory is not an error. It is
// meant to run once at start-up.
func Clean(dir string, maxAge time.Duration) (removed int, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("clean outputs in %s: %w", dir, err)
	}
	cutoff := time.Now().Add(-maxAge)
	var errs []error
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), fileSuffix) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		if info.ModTime().After(cutoff) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	if err := errors.Join(errs...); err != nil {
		return removed, fmt.Errorf("clean outputs in %s: %w", dir, err)
	}
	return removed, nil
}

// safeName keeps the characters of id that are safe in a file name.
func safeName(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 64 {
			break
		}
	}
	if b.Len() == 0 {
		return "call"
	}
	return b.String()
}
