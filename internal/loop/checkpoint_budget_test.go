package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestOverBudgetTreeIsCheckpointedByKnownPaths: a tree over a (tiny)
// budget — more files than checkpoints.max_files, or a first snapshot
// slower than first_snapshot_seconds — gets paths-only checkpoints and one
// note saying so; undo still takes back the turn's write, edit and the file
// a bash command names, and leaves every other file as it is.
func TestOverBudgetTreeIsCheckpointedByKnownPaths(t *testing.T) {
	needGit(t)
	for _, c := range []struct {
		name string
		git  bool
		set  func(*config.Config)
	}{
		{"max_files", true, func(c *config.Config) { c.Snapshots.MaxFiles = 2 }},
		{"first_snapshot_seconds", false, func(c *config.Config) { c.Snapshots.FirstSnapshot = time.Nanosecond }},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarnessWith(t, func(_ *Options, cfg *config.Config) { c.set(cfg) },
				pt.ToolCalls(pt.Call{ID: "r", Name: "read", Args: `{"path":"a.txt"}`},
					pt.Call{ID: "w", Name: "write", Args: `{"path":"new.txt","content":"brand new\n"}`}),
				pt.ToolCalls(
					pt.Call{ID: "e", Name: "edit", Args: `{"path":"a.txt","old_string":"beta","new_string":"BETA"}`},
					pt.Call{ID: "b", Name: "bash", Args: `{"command":"echo changed > b.txt && rm -rf d"}`},
				),
				pt.Text("Done."))
			for p, body := range map[string]string{"a.txt": "alpha\nbeta\n", "b.txt": "one\n", "other.txt": "mine\n", "d/e.txt": "e\n"} {
				os.MkdirAll(filepath.Dir(filepath.Join(h.dir, p)), 0o755)
				os.WriteFile(filepath.Join(h.dir, p), []byte(body), 0o644)
			}
			if c.git {
				runIn(t, h.dir, "git", "init", "-q")
				runIn(t, h.dir, "git", "add", "-A")
				runIn(t, h.dir, "git", "commit", "-qm", "fixture")
			}
			start := treeState(t, h.dir)
			if res := h.turn("change"); res.Err != nil {
				t.Fatalf("turn: %+v", res)
			}
			var notices []string
			for _, n := range h.r.Notes() {
				if strings.Contains(n, "too large to checkpoint whole") {
					notices = append(notices, n)
				}
			}
			if len(notices) != 1 || strings.Contains(notices[0], "\n") {
				t.Fatalf("notes %q, want one one-line notice of the paths-only checkpoints", h.r.Notes())
			}
			files := map[string]bool{}
			for _, p := range Turns(h.r.History())[0].Patches {
				for _, f := range p.Files {
					files[f.Path] = true
				}
			}
			if fmt.Sprint(files) != "map[a.txt:true b.txt:true d/e.txt:true new.txt:true]" {
				t.Errorf("patch files %v, want a.txt, b.txt, d/e.txt (in the directory the command removed) and new.txt", files)
			}
			os.WriteFile(filepath.Join(h.dir, "other.txt"), []byte("edited by hand\n"), 0o644)
			if _, err := h.r.Undo(context.Background()); err != nil {
				t.Fatal(err)
			}
			start["other.txt"] = treeState(t, h.dir)["other.txt"]
			if !strings.Contains(start["other.txt"], "edited by hand") {
				t.Errorf("the hand edit of other.txt was undone: %s", start["other.txt"])
			}
			sameTree(t, "after undo", treeState(t, h.dir), start)
			if _, err := h.r.Redo(context.Background()); err != nil {
				t.Fatal(err)
			}
			after := treeState(t, h.dir)
			for p, want := range map[string]string{"a.txt": "BETA", "b.txt": "changed", "new.txt": "brand new", "other.txt": "edited by hand"} {
				if !strings.Contains(after[p], want) || after["d/e.txt"] != "" {
					t.Errorf("after redo %s = %s, want %q", p, after[p], want)
				}
			}
		})
	}
}

// TestOverBudgetDecisionOutlivesTheSession: a tree whose first whole
// checkpoint ran over first_snapshot_seconds is not tried whole again by
// the next session in the directory (even with a generous budget): its
// first step goes paths-only at once, with a notice saying when and why.
func TestOverBudgetDecisionOutlivesTheSession(t *testing.T) {
	needGit(t)
	var opts Options
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		c.Snapshots.FirstSnapshot = time.Nanosecond
		opts = *o
	},
		pt.ToolCalls(pt.Call{ID: "w", Name: "write", Args: `{"path":"new.txt","content":"one\n"}`}),
		pt.Text("Done."),
		pt.ToolCalls(pt.Call{ID: "w2", Name: "write", Args: `{"path":"two.txt","content":"two\n"}`}),
		pt.Text("Done."))
	for i := range 20 {
		os.WriteFile(filepath.Join(h.dir, fmt.Sprintf("f%02d.txt", i)), []byte("x\n"), 0o644)
	}
	if res := h.turn("first"); res.Err != nil {
		t.Fatalf("turn: %+v", res)
	}
	h.cfg.Snapshots.FirstSnapshot = time.Hour
	r2, err := Open(context.Background(), opts, "")
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if _, err := r2.Send(context.Background(), "second"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if res := r2.Wait(ctx); res.Err != nil {
		t.Fatalf("second session's turn: %+v", res)
	}
	var notice string
	for _, n := range r2.Notes() {
		if strings.Contains(n, "to checkpoint whole on") {
			notice = n
		}
	}
	if notice == "" || strings.Contains(notice, "\n") {
		t.Fatalf("second session's notes %q: want the remembered decision's one-line notice", r2.Notes())
	}
	turns := Turns(r2.History())
	if len(turns) != 1 || len(turns[0].Patches) != 1 || len(turns[0].Patches[0].Files) != 1 || turns[0].Patches[0].Files[0].Path != "two.txt" {
		t.Errorf("second session's patch = %+v, want two.txt only (paths-only)", turns)
	}
}
