package mcp

// Watching and restarting from the chat's /mcp panel: Changes tells a
// reader that a server's status or tools changed (lossy: one pending
// signal stands for any number of changes, and the reader reads Status);
// Restart starts a server again by hand, with its restart count reset.

import (
	"fmt"
)

// Changes has a value after a server's status or tools changed since the
// last receive. Nil for nil Servers.
func (s *Servers) Changes() <-chan struct{} {
	if s == nil {
		return nil
	}
	return s.changes
}

// Restart connects the server name again: a failed or crashed one, with
// its restart count reset, or a connected one, whose connection is closed
// first. A server that is disabled, refused, waits for approval or is
// connecting already is not restarted: the error says why.
func (s *Servers) Restart(name string) error {
	if s == nil {
		return fmt.Errorf("no MCP server %s", name)
	}
	for _, sv := range s.servers {
		if sv.name != name {
			continue
		}
		sv.mu.Lock()
		if s.ctx.Err() != nil {
			sv.mu.Unlock()
			return fmt.Errorf("restart %s: the MCP servers are closed", name)
		}
		var old *conn
		switch sv.state {
		case StateFailed, StateCrashed:
		case StateConnected:
			old, sv.conn = sv.conn, nil
		case StateConnecting:
			sv.mu.Unlock()
			return fmt.Errorf("restart %s: it is connecting already", name)
		default:
			st, reason := sv.state, sv.reason
			sv.mu.Unlock()
			if reason != "" {
				return fmt.Errorf("restart %s: it is %s (%s)", name, st, reason)
			}
			return fmt.Errorf("restart %s: it is %s", name, st)
		}
		sv.restarts = 0
		sv.launchLocked()
		sv.mu.Unlock()
		if old != nil {
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				sv.stop(old)
			}()
		}
		s.changed()
		return nil
	}
	return fmt.Errorf("no MCP server %s", name)
}
