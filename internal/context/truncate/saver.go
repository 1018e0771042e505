package truncate

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
//
// With MaxTotalBytes set, the outputs in Dir stay bounded: before a new
// file is created the oldest saved outputs are removed until those left
// and MaxFileBytes (room for the new one) fit in MaxTotalBytes. The bound
// holds as long as no single output grows past MaxFileBytes.
type Saver struct {
	Dir           string
	MaxTotalBytes int64 // all saved outputs together; 0: unbounded
	MaxFileBytes  int64 // the most one output may take
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
	if s.MaxTotalBytes > 0 {
		// A failure to remove old outputs does not stop a new one.
		_, _ = Bound(s.Dir, max(s.MaxTotalBytes-s.MaxFileBytes, 0))
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

// Bound removes the oldest saved outputs in dir until those left take at
// most maxTotalBytes, and returns how many it removed. A missing directory
// is not an error. It costs a directory listing: it runs at start-up and
// whenever an output is saved.
func Bound(dir string, maxTotalBytes int64) (removed int, err error) {
	files, err := savedFiles(dir)
	if err != nil {
		return 0, fmt.Errorf("bound outputs in %s: %w", dir, err)
	}
	var errs []error
	for _, name := range oldestBeyond(files, maxTotalBytes) {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	if err := errors.Join(errs...); err != nil {
		return removed, fmt.Errorf("bound outputs in %s: %w", dir, err)
	}
	return removed, nil
}

// savedFile is one saved output as Bound sees it.
type savedFile struct {
	name    string
	size    int64
	modTime time.Time
}

// savedFiles lists the saved outputs in dir (none when dir is missing).
func savedFiles(dir string) ([]savedFile, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var files []savedFile
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), fileSuffix) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		files = append(files, savedFile{name: e.Name(), size: info.Size(), modTime: info.ModTime()})
	}
	return files, nil
}

// oldestBeyond returns the names of the files to remove, oldest first, so
// that the others total at most maxTotalBytes.
func oldestBeyond(files []savedFile, maxTotalBytes int64) []string {
	var total int64
	for _, f := range files {
		total += f.size
	}
	if total <= maxTotalBytes {
		return nil
	}
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b savedFile) int {
		if c := a.modTime.Compare(b.modTime); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	var names []string
	for _, f := range sorted {
		if total <= maxTotalBytes {
			break
		}
		names = append(names, f.name)
		total -= f.size
	}
	return names
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
