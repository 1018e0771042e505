package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// handleRendered stores markdown renders.
func (m *Model) handleRendered(msg renderedMsg) {
	for i, j := range msg.jobs {
		if j.blk.pending == j.key {
			j.blk.pending = mdKey{}
		}
		if j.blk.src != j.key.src && !(j.tail && strings.HasPrefix(j.blk.src, j.key.src)) {
			continue // the block changed since
		}
		j.blk.r = mdRendering{key: j.key, lines: msg.lines[i]}
		j.owner.ver++
	}
}

// scheduleRenders starts markdown renders the last layout found missing.
// Finished blocks go in one batch; a streaming tail waits for its
// interval.
func (m *Model) scheduleRenders() []tea.Cmd {
	if len(m.rc.missing) == 0 {
		return nil
	}
	var jobs []mdJob
	var cmds []tea.Cmd
	now := time.Now()
	for _, j := range m.rc.missing {
		if j.blk.pending == j.key {
			continue
		}
		if j.tail {
			doc := j.owner.doc
			if wait := tailRenderInterval - now.Sub(doc.lastTail); wait > 0 {
				owner := j.owner
				cmds = append(cmds, m.after(wait, tailDueMsg{owner: owner}))
				j.blk.pending = j.key // one wake-up at a time
				continue
			}
			doc.lastTail = now
		}
		j.blk.pending = j.key
		jobs = append(jobs, j)
	}
	m.rc.missing = m.rc.missing[:0]
	if len(jobs) > 0 {
		cmds = append(cmds, func() tea.Msg {
			out := make([][]string, len(jobs))
			for i, j := range jobs {
				out[i] = renderMarkdown(j.key.src, j.key.width, j.key.dark)
			}
			return renderedMsg{jobs: jobs, lines: out}
		})
	}
	return cmds
}
