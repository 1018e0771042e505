package lsp

import "fmt"

// Restart lets the server name start again at the next edit of one of
// its files when it has stopped for good (it died or hung more than
// maxRestarts times, or was not installed), its restarts counted from
// zero; a running or starting server is left alone. It returns how many
// of the server's roots it revived (0: none had stopped), and an error
// when name is not a configured server.
func (s *Servers) Restart(name string) (int, error) {
	if s == nil {
		return 0, fmt.Errorf("no language server is configured")
	}
	if _, ok := s.cfg.Servers[name]; !ok {
		return 0, fmt.Errorf("no language server is named %q", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, sv := range s.slots {
		if sv.name != name {
			continue
		}
		sv.mu.Lock()
		if sv.failed != nil && sv.c == nil && sv.starting == nil {
			sv.failed, sv.restarts, sv.timeouts, sv.noted = nil, 0, 0, false
			n++
		}
		sv.mu.Unlock()
	}
	return n, nil
}
