package tui

// Markdown renders are scheduled after each layout for the blocks it
// showed unrendered, and run off the event loop (see markdown.go).

import (
	"strings"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
)

// apply stores markdown renders.
func (msg renderedMsg) apply() {
	for i, j := range msg.jobs {
		if j.tail {
			j.owner.doc.tailBusy = false
			j.owner.ver++ // the tail may have grown: lay out, maybe render again
		} else if j.blk.pending == j.key {
			j.blk.pending = mdKey{}
		}
		if msg.lines[i] == nil {
			continue // skipped: the width changed before it ran
		}
		if j.blk.src != j.key.src && !(j.tail && strings.HasPrefix(j.blk.src, j.key.src)) {
			continue // the block changed since
		}
		j.blk.r = mdRendering{key: j.key, lines: msg.lines[i]}
		j.owner.ver++
	}
}

// renderWidth is the width markdown is laid out at now; render commands
// skip blocks of an older width (a resize in between).
type renderWidth struct{ atomic.Int64 }

// schedule starts markdown renders the last layout found missing, at
// the width in rw. Finished blocks go in one batch; a streaming tail
// waits for its interval (delivered by after).
func (rc *renderCtx) schedule(rw *renderWidth, after func(time.Duration, tea.Msg) tea.Cmd) []tea.Cmd {
	if len(rc.missing) == 0 {
		return nil
	}
	var jobs []mdJob
	var cmds []tea.Cmd
	now := time.Now()
	for _, j := range rc.missing {
		if j.tail {
			// One render or wake-up at a time, tailRenderInterval apart.
			doc := j.owner.doc
			if doc.tailBusy || doc.tailWake {
				continue
			}
			if wait := tailRenderInterval - now.Sub(doc.lastTail); wait > 0 {
				doc.tailWake = true
				cmds = append(cmds, after(wait, tailDueMsg{owner: j.owner}))
				continue
			}
			doc.lastTail, doc.tailBusy = now, true
			jobs = append(jobs, j)
			continue
		}
		if j.blk.pending == j.key {
			continue
		}
		j.blk.pending = j.key
		jobs = append(jobs, j)
	}
	rc.missing = rc.missing[:0]
	if len(jobs) > 0 {
		width := rw
		cmds = append(cmds, func() tea.Msg {
			out := make([][]string, len(jobs))
			for i, j := range jobs {
				if int64(j.key.width) != width.Load() {
					continue
				}
				out[i] = renderMarkdown(j.key.src, j.key.width, j.key.dark)
			}
			return renderedMsg{jobs: jobs, lines: out}
		})
	}
	return cmds
}
