package sandbox

import "sync"

// Setting is a session's sandbox policy, shared between who changes it at
// run time (the chat's /sandbox) and the tools that read it for each
// command. Safe for concurrent use; a nil *Setting is off.
type Setting struct {
	mu sync.Mutex
	p  Policy
}

// NewSetting is a Setting starting at p (its Workspace is filled per
// command by the tool, from the session's directory).
func NewSetting(p Policy) *Setting { return &Setting{p: p} }

// Policy is the policy in force (mode off for a nil Setting).
func (s *Setting) Policy() Policy {
	if s == nil {
		return Policy{Mode: ModeOff}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.p
	if p.Mode == "" {
		p.Mode = ModeOff
	}
	return p
}

// SetMode changes the mode from the next command on.
func (s *Setting) SetMode(m Mode) {
	s.mu.Lock()
	s.p.Mode = m
	s.mu.Unlock()
}

// Active reports whether commands run sandboxed now: a mode other than
// off, on a machine where the sandbox runs (Probe).
func (s *Setting) Active() bool {
	return s.Policy().Mode != ModeOff && Probe() == nil
}
