package skills

// catalog.go: the I/O part — finding the skills directories, reading each
// SKILL.md by safefile's rules, the approvals, and the cache that makes a
// scan per turn cheap.

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

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/gitcmd"
	"github.com/ctxloop/agent/internal/safefile"
)

// KindSkill is the approval kind of a project's skill.
const KindSkill = "skill"

// Approvals is what the catalog asks about a project's skill; an
// *approval.Store is one. Nil approves no project skill.
type Approvals interface {
	Approved(project, kind, name, digest string) bool
}

// Catalog finds and reads the skills of one directory. Make one with
// NewCatalog.
type Catalog struct {
	roots     Roots
	approvals Approvals

	mu    sync.Mutex
	files map[string]cachedFile // by SKILL.md path, from the last Load
}

// cachedFile is a SKILL.md as last read, valid while its size and
// modification time are unchanged.
type cachedFile struct {
	size    int64
	modTime time.Time
	p       parsed
	digest  string
}

// NewCatalog returns the catalog of roots; approvals says which project
// skills the user approved. Nothing is read until the first Load.
func NewCatalog(roots Roots, approvals Approvals) *Catalog {
	return &Catalog{roots: roots, approvals: approvals, files: map[string]cachedFile{}}
}

// source is one skills directory; home is what a SKILL.md under it must
// resolve inside ("" for the user's).
type source struct {
	dir, kind, home string
}

// Load scans the skills directories.
func (c *Catalog) Load() Set {
	c.mu.Lock()
	defer c.mu.Unlock()
	var set Set
	byName := map[string]int{}
	seen := map[string]cachedFile{}
	for _, src := range c.sources() {
		folders, notice := listFolders(src.dir)
		if notice != "" {
			set.Notices = append(set.Notices, notice)
		}
		for _, folder := range folders {
			sk := c.read(src, folder, seen)
			if sk.Name == "" {
				sk.Name = oneLine(folder, maxNameRunes+8) // a broken one's folder, safe to print
			}
			if i, ok := byName[sk.Name]; ok {
				sk.ShadowedBy = set.Skills[i].Path
				set.Shadowed = append(set.Shadowed, sk)
				continue
			}
			byName[sk.Name] = len(set.Skills)
			set.Skills = append(set.Skills, sk)
		}
	}
	c.files = seen
	byNameOrder := func(a, b Skill) int { return strings.Compare(a.Name, b.Name) }
	slices.SortStableFunc(set.Skills, byNameOrder)
	slices.SortStableFunc(set.Shadowed, byNameOrder)
	return set
}

// Lookup loads the skills and returns the one named name.
func (c *Catalog) Lookup(name string) (Skill, Set, bool) {
	set := c.Load()
	sk, ok := set.Find(name)
	return sk, set, ok
}

// read reads the skill in folder of src (seen collects the cache).
func (c *Catalog) read(src source, folder string, seen map[string]cachedFile) Skill {
	dir := filepath.Join(src.dir, folder)
	path := filepath.Join(dir, "SKILL.md")
	sk := Skill{Source: src.kind, Dir: dir, Path: path, Approved: src.kind == SourceUser}
	fi, err := os.Stat(path) // links followed; safefile checks where they lead
	if err != nil {
		sk.Broken = "SKILL.md: " + reason(err)
		return sk
	}
	sk.SizeBytes = fi.Size()
	cf, ok := c.files[path]
	if !ok || cf.size != fi.Size() || !cf.modTime.Equal(fi.ModTime()) {
		data, err := safefile.Read(context.Background(), path, src.home, MaxFileBytes)
		if err != nil {
			sk.Broken = "SKILL.md is refused: " + reason(err)
			if errors.Is(err, safefile.ErrTooLarge) {
				sk.Broken = fmt.Sprintf("SKILL.md is refused: %d KB, over the %d KB limit", fi.Size()>>10, MaxFileBytes>>10)
			}
			return sk
		}
		cf = cachedFile{size: fi.Size(), modTime: fi.ModTime(), p: parseSkill(data, folder), digest: approval.Digest(string(data))}
	}
	seen[path] = cf
	p := cf.p
	sk.Name, sk.Description, sk.License = p.fm.Name, p.fm.Description, p.fm.License
	sk.AllowedTools, sk.ModelHidden, sk.Broken, sk.Digest, sk.body = p.tools, p.fm.NoModel, p.broken, cf.digest, p.body
	if badName(sk.Name) != "" {
		sk.Name = "" // Load names it by its folder
	}
	if src.kind == SourceProject {
		sk.Approved = c.approvals != nil && c.approvals.Approved(dir, KindSkill, sk.Name, sk.Digest)
	}
	return sk
}

// sources are the skills directories, the one that wins a name first:
// the user's, then the project's.
func (c *Catalog) sources() []source {
	r := c.roots
	var out []source
	add := func(dir, kind, home string) {
		if dir == "" {
			return
		}
		dir = filepath.Clean(dir)
		for _, s := range out {
			if s.dir == dir {
				return
			}
		}
		out = append(out, source{dir: dir, kind: kind, home: home})
	}
	add(r.UserDir, SourceUser, "")
	if r.Home != "" {
		add(filepath.Join(r.Home, ".claude", "skills"), SourceUser, "")
	}
	if project := projectRoot(r.Dir, r.Home); project != "" {
		for _, d := range projectDirs {
			add(filepath.Join(project, d, "skills"), SourceProject, project)
		}
	}
	return out
}

// projectDirs hold a project's skills directories, in the order that wins
// a name.
var projectDirs = []string{".agent", ".claude", ".agents"}

// projectRoot is the nearest directory from dir up that has a skills
// directory, "" when none has. The walk stops at searchTop and never
// reaches the home.
func projectRoot(dir, home string) string {
	if dir == "" {
		return ""
	}
	dir = filepath.Clean(dir)
	if home != "" {
		home = filepath.Clean(home)
	}
	top := searchTop(dir, home)
	for d := dir; d != home; d = filepath.Dir(d) {
		for _, p := range projectDirs {
			if fi, err := os.Stat(filepath.Join(d, p, "skills")); err == nil && fi.IsDir() {
				return d
			}
		}
		if d == top || filepath.Dir(d) == d {
			return ""
		}
	}
	return ""
}

// searchTop is the last directory the walk from dir looks at, as the
// prompt's AGENTS.md lookup has it: the repository's root (the nearest
// directory with a .git); outside a repository, the home's child dir is
// in, or dir alone outside the home (a parent such as /tmp is anyone's).
func searchTop(dir, home string) string {
	if root, ok := gitcmd.NearestRoot(dir); ok {
		return root
	}
	if home != "" && home != dir {
		if rel, err := filepath.Rel(home, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
			return filepath.Join(home, first)
		}
	}
	return dir
}

// listFolders lists the skill folders of dir (hidden ones left out), in
// name order, MaxSkills at most. A missing dir has none.
func listFolders(dir string) ([]string, string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ""
		}
		return nil, fmt.Sprintf("skills in %s are not read: %s", oneLine(dir, 400), reason(err))
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 { // a linked folder: safefile judges where it leads
			fi, err := os.Stat(filepath.Join(dir, name))
			isDir = err != nil || fi.IsDir()
		}
		if !isDir {
			continue
		}
		if len(out) == MaxSkills {
			return out, fmt.Sprintf("skills in %s: only the first %d are read", oneLine(dir, 400), MaxSkills)
		}
		out = append(out, name)
	}
	return out, ""
}

// reason is an error's text without the path the caller names.
func reason(err error) string {
	var se *safefile.Error
	if errors.As(err, &se) {
		err = se.Err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, safefile.ErrOutside) {
		return "it is a link that leads outside the project"
	}
	return oneLine(err.Error(), 300)
}
