package commands

// The I/O part: finding the commands directories, walking them, and the
// cache of parsed files that makes a re-scan cheap.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/safefile"
	"github.com/ctxloop/agent/internal/termsafe"
)

// Catalog finds and reads the custom commands of one directory. Its zero
// value is not usable: make one with NewCatalog.
type Catalog struct {
	roots    Roots
	reserved map[string]bool

	mu    sync.Mutex
	files map[string]cachedFile // by path, from the last Load
}

// cachedFile is a file as last read, valid while its size and
// modification time are unchanged.
type cachedFile struct {
	size    int64
	modTime time.Time
	t       template
	text    bool
}

// NewCatalog returns the catalog of roots. A command named like one of
// reserved (the chat's built-in commands) is never used. Nothing is read
// until the first Load.
func NewCatalog(roots Roots, reserved []string) *Catalog {
	c := &Catalog{roots: roots, reserved: map[string]bool{}, files: map[string]cachedFile{}}
	for _, r := range reserved {
		c.reserved[strings.ToLower(r)] = true
	}
	return c
}

// source is one commands directory.
type source struct {
	dir, kind string
}

// Load scans the commands directories and returns the commands and the
// notices. Only files that changed since the last Load are read again.
func (c *Catalog) Load() Set {
	c.mu.Lock()
	defer c.mu.Unlock()
	var set Set
	byName := map[string]int{}
	seen := make(map[string]cachedFile, len(c.files))
	for _, src := range c.sources() {
		files, notices := walk(src.dir)
		set.Notices = append(set.Notices, notices...)
		// A project's files are checked when the directory or the file
		// is a link.
		var inside func(string) bool
		dirInside, home := true, ""
		if src.kind == SourceProject {
			inside = withinProject(src.dir)
			dirInside = inside(src.dir)
			home = filepath.Dir(filepath.Dir(src.dir))
		}
		taken := map[string]string{} // names from this directory
		for _, f := range files {
			name := nameOf(f.rel)
			if name == "" {
				set.Notices = append(set.Notices, fmt.Sprintf("custom command file %s is not used: its name has no letter or digit", show(f.path)))
				continue
			}
			if other, dup := taken[name]; dup {
				set.Notices = append(set.Notices, fmt.Sprintf("custom command file %s is not used: %s already names /%s", show(f.path), show(other), name))
				continue
			}
			taken[name] = f.path
			if inside != nil && (f.link || !dirInside) && !inside(f.path) {
				set.Notices = append(set.Notices, fmt.Sprintf("custom command file %s is not used: it leads outside the project (or nowhere)", show(f.path)))
				continue
			}
			cf, notice := c.read(f, home)
			if notice != "" {
				set.Notices = append(set.Notices, notice)
				continue
			}
			seen[f.path] = cf
			if c.reserved[name] {
				set.Notices = append(set.Notices, fmt.Sprintf("custom command /%s (%s) is not used: /%s is a built-in command", name, show(f.path), name))
				continue
			}
			cmd := Command{
				Name: name, Description: cf.t.description, ArgumentHint: cf.t.hint,
				Source: src.kind, Path: f.path, Body: cf.t.body,
			}
			if i, ok := byName[name]; ok {
				winner := &set.Commands[i]
				if winner.Overrides == "" {
					winner.Overrides, winner.OverridesSource = f.path, src.kind
				}
				cmd.ShadowedBy = winner.Path
				set.Shadowed = append(set.Shadowed, cmd)
				continue
			}
			byName[name] = len(set.Commands)
			set.Commands = append(set.Commands, cmd)
		}
	}
	c.files = seen
	c.addSkills(&set, byName)
	sortCommands(set.Commands)
	sortCommands(set.Shadowed)
	return set
}

// addSkills adds the skills of Roots.Skills after the files: a command
// of the same name wins, and a built-in's name is never taken.
func (c *Catalog) addSkills(set *Set, byName map[string]int) {
	if c.roots.Skills == nil {
		return
	}
	for _, cmd := range c.roots.Skills() {
		cmd.Source = SourceSkill
		if c.reserved[cmd.Name] {
			set.Notices = append(set.Notices, fmt.Sprintf("skill %s (%s) is not a command: /%s is a built-in command", cmd.Name, show(cmd.Path), cmd.Name))
			continue
		}
		if i, ok := byName[cmd.Name]; ok {
			winner := &set.Commands[i]
			if winner.Overrides == "" {
				winner.Overrides, winner.OverridesSource = cmd.Path, SourceSkill
			}
			cmd.ShadowedBy = winner.Path
			set.Shadowed = append(set.Shadowed, cmd)
			continue
		}
		byName[cmd.Name] = len(set.Commands)
		set.Commands = append(set.Commands, cmd)
	}
}

// Lookup loads the commands and returns the one named name.
func (c *Catalog) Lookup(name string) (Command, Set, bool) {
	set := c.Load()
	cmd, ok := set.Find(name)
	return cmd, set, ok
}

// read returns the parsed file, from the cache when unchanged; notice
// says why a file is not used. A project's file must lead inside home
// (the project); a user's has home "".
func (c *Catalog) read(f found, home string) (cachedFile, string) {
	fi, err := os.Stat(f.path) // a symbolic link is followed
	switch {
	case err != nil:
		return cachedFile{}, fmt.Sprintf("custom command file %s is not used: %v", show(f.path), clean(err))
	case !fi.Mode().IsRegular():
		return cachedFile{}, fmt.Sprintf("custom command file %s is not used: not a regular file", show(f.path))
	case fi.Size() > MaxFileBytes:
		return cachedFile{}, fmt.Sprintf("custom command file %s is not used: %d KB, over the %d KB limit", show(f.path), fi.Size()>>10, MaxFileBytes>>10)
	}
	if cf, ok := c.files[f.path]; ok && cf.size == fi.Size() && cf.modTime.Equal(fi.ModTime()) {
		return cf, cf.notice(f.path)
	}
	return c.readChecked(f, fi, home)
}

// readChecked reads and parses a file whose Stat (fi) passed read's
// checks, by safefile's rules: what is opened may no longer be what was
// checked (a FIFO swapped in blocks no one, a link swapped in stays in
// home).
func (c *Catalog) readChecked(f found, fi fs.FileInfo, home string) (cachedFile, string) {
	data, err := safefile.Read(context.Background(), f.path, home, MaxFileBytes)
	if err != nil {
		var e *safefile.Error
		if errors.As(err, &e) {
			err = e.Err
		}
		return cachedFile{}, fmt.Sprintf("custom command file %s is not used: %v", show(f.path), clean(err))
	}
	cf := cachedFile{size: fi.Size(), modTime: fi.ModTime()}
	cf.t, cf.text = parseFile(data)
	return cf, cf.notice(f.path)
}

// notice is why a read file is not used ("" when it is).
func (cf cachedFile) notice(path string) string {
	if cf.text {
		return ""
	}
	return fmt.Sprintf("custom command file %s is not used: not UTF-8 text", show(path))
}

// sources are the commands directories, the one that wins a name first:
// the user's own, then the project's (the nearest first). A cloned
// repository may add commands but never replace one the user wrote.
func (c *Catalog) sources() []source {
	var out []source
	add := func(dir, kind string) {
		if dir == "" {
			return
		}
		dir = filepath.Clean(dir)
		for _, s := range out {
			if s.dir == dir {
				return
			}
		}
		out = append(out, source{dir: dir, kind: kind})
	}
	r := c.roots
	add(r.UserDir, SourceUser)
	if r.Dir != "" {
		home := ""
		if r.Home != "" {
			home = filepath.Clean(r.Home)
		}
		for d := filepath.Clean(r.Dir); d != home; {
			if dir := filepath.Join(d, ".agent", "commands"); isDir(dir) {
				add(dir, SourceProject)
				break
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	if r.ProjectFile != "" {
		add(filepath.Join(filepath.Dir(r.ProjectFile), "commands"), SourceProject)
	}
	return out
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// found is a command file found by walk.
type found struct {
	path string // the file
	rel  string // below its commands directory, with "/"
	link bool   // a symbolic link
}

// withinProject returns the test that a path of the project commands
// directory dir (PROJECT/.agent/commands) resolves inside PROJECT: a
// cloned repository must not turn a command into a way to send the user's
// own files (a link to ~/.ssh/id_rsa) as a message.
func withinProject(dir string) func(string) bool {
	root, err := filepath.EvalSymlinks(filepath.Dir(filepath.Dir(dir)))
	return func(path string) bool {
		if err != nil {
			return false
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return false
		}
		rel, err := filepath.Rel(root, real)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
}

// walk lists the .md files under dir, in name order, MaxDepth deep at
// most, hidden entries and linked directories left out. A missing dir
// has none.
func walk(dir string) ([]found, []string) {
	var files []found
	var notices []string
	full := false
	var visit func(sub string, depth int)
	visit = func(sub string, depth int) {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) || sub != "" {
				notices = append(notices, fmt.Sprintf("custom commands in %s are not read: %v", show(filepath.Join(dir, sub)), clean(err)))
			}
			return
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			rel := name
			if sub != "" {
				rel = sub + "/" + name
			}
			switch {
			case e.IsDir():
				if depth < MaxDepth {
					visit(rel, depth+1)
				}
			case strings.EqualFold(filepath.Ext(name), ".md"):
				if len(files) == MaxFiles {
					if !full {
						notices = append(notices, fmt.Sprintf("custom commands in %s: only the first %d files are used", show(dir), MaxFiles))
						full = true
					}
					return
				}
				files = append(files, found{path: filepath.Join(dir, filepath.FromSlash(rel)), rel: rel, link: e.Type()&fs.ModeSymlink != 0})
			}
		}
	}
	visit("", 0)
	return files, notices
}

// show makes a path safe to print on one line.
func show(path string) string {
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(termsafe.Strip(path))
}

// clean is an error's text without the path the notice already names.
func clean(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return termsafe.Strip(pe.Op + ": " + pe.Err.Error())
	}
	return termsafe.Strip(err.Error())
}

func sortCommands(cs []Command) {
	slices.SortFunc(cs, func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
}
