package loop

// instructions.go: which AGENTS.md files go into the system prompt, and
// how they are read. A cloned repository chooses what its AGENTS.md is,
// so it is read by the tools' rules (internal/safefile): a link must stay
// inside the repository (the user's own file inside its directory), only
// a regular file is read, non-blocking and at most
// maxInstructionFileBytes. A file refused is skipped and named, with the
// reason, in Environment.Skipped (the runner turns those into notes: the
// chat shows them, agent run prints them on stderr).
//
// The lookup: from the directory up to the repository's root (the
// nearest directory with a .git); outside a repository, the directory
// itself only — never /tmp's or /'s AGENTS.md.

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxloop/agent/internal/gitcmd"
	"github.com/ctxloop/agent/internal/safefile"
)

// instructionFile is an AGENTS.md to read and the directory it must stay
// inside.
type instructionFile struct {
	path, home string
}

// instructionFiles returns the user's AGENTS.md (when userAgentsFile is
// not "") and the project's nearest one for dir.
func instructionFiles(dir, userAgentsFile string) []instructionFile {
	var out []instructionFile
	if userAgentsFile != "" {
		out = append(out, instructionFile{path: userAgentsFile, home: filepath.Dir(userAgentsFile)})
	}
	if f, ok := findAgentsFile(dir); ok {
		out = append(out, f)
	}
	return out
}

// findAgentsFile finds AGENTS.md in dir or the nearest parent up to the
// repository's root; outside a repository, in dir only. The home it
// returns is the repository's root (or dir). A link counts as a file
// found: reading decides whether it may be followed.
func findAgentsFile(dir string) (instructionFile, bool) {
	root, inRepo := gitcmd.NearestRoot(dir)
	if !inRepo {
		root = dir
	}
	for d := dir; ; {
		path := filepath.Join(d, "AGENTS.md")
		if _, err := os.Lstat(path); err == nil {
			return instructionFile{path: path, home: root}, true
		}
		parent := filepath.Dir(d)
		if d == root || parent == d {
			return instructionFile{}, false
		}
		d = parent
	}
}

// readInstructions reads files into env: the non-empty ones as
// Instructions (cut to maxInstructionBytes), the refused ones as Skipped.
// A missing file is passed over in silence.
func readInstructions(ctx context.Context, env *Environment, files []instructionFile) {
	for _, f := range files {
		data, err := safefile.Read(ctx, f.path, f.home, maxInstructionFileBytes)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) && ctx.Err() == nil {
				env.Skipped = append(env.Skipped, safefile.Warning(f.path, err))
			}
			continue
		}
		text := string(data)
		if len(strings.TrimSpace(text)) == 0 {
			continue
		}
		if len(text) > maxInstructionBytes {
			text = text[:maxInstructionBytes] + "\n[… truncated]"
		}
		env.Instructions = append(env.Instructions, Instruction{Path: f.path, Text: text})
	}
}

// skippedNotes remembers the Skipped lines already noted, so that a file
// refused on every turn's gathering is named once per session.
type skippedNotes struct{ seen map[string]bool }

// report passes to note each line of skipped not reported before.
func (s *skippedNotes) report(skipped []string, note func(string)) {
	for _, line := range skipped {
		if s.seen[line] {
			continue
		}
		if s.seen == nil {
			s.seen = map[string]bool{}
		}
		s.seen[line] = true
		note(line)
	}
}
